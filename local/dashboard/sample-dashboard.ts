/**
 * The sample stack's dashboard and alarms (sample/app/msk-inbox-stack.ts), synthesized in this process as
 * `cdk synth` would make them (cdk.json's context), with NodejsFunction's bundling skipped: the template
 * is all that is read, so nothing is defined a second time. aws-cdk-lib is imported here only when asked,
 * so `npm start` loads it while its setup runs.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../project-paths.js';
import { type DashboardWidget, dashboardOf, type TemplateResources } from './dashboard-body.js';
import { type TemplateAlarm, templateAlarms } from './template-alarms.js';

export interface SampleDashboard {
  readonly widgets: readonly DashboardWidget[];
  readonly alarms: readonly TemplateAlarm[];
  /** The template's resources, for what else a reader wants to trace (the alarms' logical ids). */
  readonly resources: TemplateResources;
}

/** Any valid MSK cluster ARN: the dashboard does not depend on which. */
const EXAMPLE_CLUSTER_ARN =
  'arn:aws:kafka:us-east-1:123456789012:cluster/demo/751d2973-a626-431c-9d4e-d7975eb44dd7-2';
const STACK_NAME = 'MskInbox';

export async function synthesizeSampleDashboard(consumerName: string): Promise<SampleDashboard> {
  const [{ App }, { MskInboxStack }] = await Promise.all([
    import('aws-cdk-lib'),
    import('../../sample/app/msk-inbox-stack.js'),
  ]);
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const app = new App({
    // The stacks whose assets are bundled: none (the template does not need the function's code).
    // Path metadata (as the CLI asks for by default) names each alarm by its construct id.
    context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], 'aws:cdk:enable-path-metadata': true },
    builtinCloudFormationValidation: false,
  });
  new MskInboxStack(app, STACK_NAME, {
    source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
    topic: 'orders',
    consumerGroupId: consumerName,
    consumerName,
  });
  const assembly = app.synth();
  try {
    const resources = (assembly.getStackByName(STACK_NAME).template as { Resources: TemplateResources })
      .Resources;
    return { widgets: dashboardOf(resources), alarms: templateAlarms(resources), resources };
  } finally {
    rmSync(assembly.directory, { recursive: true, force: true });
  }
}
