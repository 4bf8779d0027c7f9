import { resolve } from 'node:path';
import { App, type AppProps, CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, type NagPack, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { CDK_JSON_CONTEXT } from '../support/cdk-context.js';

export const EXAMPLE_CLUSTER_ARN =
  'arn:aws:kafka:us-east-1:123456789012:cluster/demo/751d2973-a626-431c-9d4e-d7975eb44dd7-2';
export const EXAMPLE_SECRET_ARN =
  'arn:aws:secretsmanager:us-east-1:123456789012:secret:AmazonMSK_orders-AbCdEf';

/** A stand-in handler: construct tests bundle it in milliseconds. */
export const FIXTURE_ENTRY = resolve(import.meta.dirname, 'fixtures', 'handler.ts');

// Bundling runs esbuild from node_modules; Docker must never be needed.
process.env.CDK_DOCKER = 'false';

/** An App with cdk.json's context (its feature flags), as `cdk synth` builds one. */
export function projectApp(props: AppProps = {}): App {
  return new App({ ...props, context: { ...CDK_JSON_CONTEXT, ...props.context } });
}

/** The template logical id of a construct (its default child) or of a CloudFormation element. */
export function logicalId(construct: IConstruct): string {
  const element = CfnElement.isCfnElement(construct) ? construct : construct.node.defaultChild;
  if (!element || !CfnElement.isCfnElement(element)) {
    throw new Error(`${construct.node.path} has no CloudFormation element`);
  }
  return Stack.of(element).resolve(element.logicalId) as string;
}

export type Resource = { Type: string; Properties: Record<string, unknown>; [key: string]: unknown };

/** The one resource of a type (fails the test if there are several or none). */
export function onlyResource(template: Template, type: string): Resource {
  const found = Object.values(template.findResources(type)) as Resource[];
  if (found.length !== 1) {
    throw new Error(`expected exactly one ${type}, found ${found.length}`);
  }
  const [resource] = found as [Resource];
  return { ...resource, Properties: resource.Properties ?? {} };
}

/** The statements of every IAM policy in the template, flattened. */
export function policyStatements(template: Template): Record<string, unknown>[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .flatMap(
      (policy) => (policy as Resource).Properties.PolicyDocument as { Statement: Record<string, unknown>[] },
    )
    .flatMap((document) => document.Statement);
}

/**
 * Each allowed action with its resource (and condition), one per pair, sorted: what a role may do, whatever
 * way CDK merges and orders the statements (`@aws-cdk/aws-iam:minimizePolicies` in cdk.json merges them).
 */
export function allowedPairs(statements: readonly Record<string, unknown>[]): string[] {
  return statements
    .flatMap((statement) => {
      const actions = [statement.Action].flat() as string[];
      const resources = [statement.Resource].flat();
      const condition = statement.Condition === undefined ? '' : ` if ${JSON.stringify(statement.Condition)}`;
      return actions.flatMap((action) =>
        resources.map(
          (resource) => `${statement.Effect} ${action} on ${JSON.stringify(resource)}${condition}`,
        ),
      );
    })
    .sort();
}

export interface NagFinding {
  readonly rule: string;
  readonly path: string;
}

export function nagPacks(): NagPack[] {
  return [new AwsSolutionsChecks(), new ServerlessChecks()];
}

/** Findings the packs report: acknowledged ones are left out, as `cdk synth` does. */
export function unacknowledgedFindings(app: App): NagFinding[] {
  return nagPacks().flatMap((pack) =>
    pack.validateScope(app).violations.flatMap((violation) =>
      violation.violatingResources.map((resource) => ({
        rule: violation.ruleName,
        path: resource.constructPath ?? '',
      })),
    ),
  );
}

/** Every finding, acknowledged or not. */
export function allFindings(app: App): NagFinding[] {
  return nagPacks().flatMap((pack) => {
    // Ask the pack as if nothing were acknowledged.
    Object.defineProperty(pack, 'isAcknowledged', { value: () => false });
    return pack.validateScope(app).violations.flatMap((violation) =>
      violation.violatingResources.map((resource) => ({
        rule: violation.ruleName,
        path: resource.constructPath ?? '',
      })),
    );
  });
}

export interface Acknowledgement {
  readonly rule: string;
  readonly path: string;
  readonly reason: string;
}

/** Every `Validations.of(x).acknowledge(...)` in the tree. */
export function acknowledgements(root: IConstruct): Acknowledgement[] {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY && entry.data)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          rule: id.replace(/^annotation::/i, ''),
          path: construct.node.path,
          reason,
        })),
      ),
  );
}

/** The dashboard body with CloudFormation tokens replaced, parsed. */
export function dashboardBody(template: Template): { widgets: DashboardWidget[] } {
  const dashboard = onlyResource(template, 'AWS::CloudWatch::Dashboard');
  const body = dashboard.Properties?.DashboardBody as { 'Fn::Join': [string, unknown[]] };
  const text = body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : 'TOKEN')).join('');
  return JSON.parse(text) as { widgets: DashboardWidget[] };
}

export interface DashboardWidget {
  readonly type: string;
  readonly properties: {
    title?: string;
    metrics?: unknown[][];
    annotations?: unknown;
    [key: string]: unknown;
  };
}

/** `namespace/metricName` of every metric drawn (math expressions' inputs included). */
export function dashboardMetrics(template: Template): Set<string> {
  const names = new Set<string>();
  for (const widget of dashboardBody(template).widgets) {
    for (const metric of widget.properties.metrics ?? []) {
      const [first, second] = metric;
      if (typeof first === 'string' && typeof second === 'string') {
        names.add(`${first}/${second}`);
      }
    }
  }
  return names;
}

/** A value the construct should have made here (the failure bucket, say): fails the test when it is missing. */
export function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`expected ${what}, found none`);
  return value;
}
