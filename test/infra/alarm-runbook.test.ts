import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../lib/cli/user-error.js';
import { MskInboxStack } from '../../lib/msk-inbox-stack.js';
import type { OperatorIo } from '../../lib/operator/commands/operator-io.js';
import { runOperator } from '../../lib/operator/operator-main.js';
import { EXAMPLE_CLUSTER_ARN, FIXTURE_ENTRY, type Resource } from './support.js';

/** The description as CloudWatch shows it, with each reference as `<LogicalId>` or `<pseudo parameter>`. */
function rendered(description: unknown): string {
  if (typeof description === 'string') return description;
  const [separator, parts] = (description as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  return parts
    .map((part) =>
      typeof part === 'string'
        ? part
        : `${String((part as { Ref: string }).Ref).replace('AWS::', '')}-value`.toLowerCase(),
    )
    .join(separator);
}

const quietIo: OperatorIo = {
  print: () => undefined,
  note: () => undefined,
  ask: async () => undefined,
  nowMs: () => 0,
  user: () => 'test',
};

describe("the alarms' runbook commands", () => {
  let descriptions: string[];

  beforeAll(() => {
    const app = new App({ builtinCloudFormationValidation: false });
    new MskInboxStack(app, 'Runbook', {
      source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
      topic: 'orders',
      consumerGroupId: 'order-consumer',
      entry: FIXTURE_ENTRY,
    });
    const template = Template.fromStack(app.node.findChild('Runbook') as MskInboxStack);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[];
    descriptions = alarms.map((alarm) => rendered(alarm.Properties.AlarmDescription));
  }, 120_000);

  const commandsIn = (text: string): string[][] =>
    [...text.matchAll(/npx msk-inbox ([^.()]+)/g)].map(([, line]) => (line as string).trim().split(/\s+/));

  it('name the msk-inbox commands for quarantined and for dropped records, with this consumer filled in', () => {
    const quarantined = descriptions.find((text) => text.startsWith('Records were quarantined'));
    const dropped = descriptions.find((text) => text.startsWith('Records exhausted their retries'));
    expect(quarantined).toContain('npx msk-inbox quarantine list --consumer order-consumer --table inbox');
    expect(quarantined).toMatch(/quarantine replay --all --function orderconsumerfunction\w*-value/);
    expect(dropped).toMatch(/npx msk-inbox failed-batches list --bucket orderconsumerfailedbatches\w*-value/);
    expect(dropped).toContain('failed-batches replay --all');
    for (const text of [quarantined, dropped]) expect((text ?? '').length).toBeLessThanOrEqual(1024);
  });

  it('are commands the tool knows, with flags it takes', async () => {
    const commands = descriptions.flatMap(commandsIn);
    expect(commands.length).toBeGreaterThanOrEqual(4);
    for (const argv of commands) {
      const outcome = await runOperator([...argv, '--help'], quietIo).catch((error: unknown) =>
        error instanceof UserError ? error.message : error,
      );
      expect(outcome, `msk-inbox ${argv.join(' ')}`).toBe(0);
    }
  });
});
