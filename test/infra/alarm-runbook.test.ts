import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConsumerMonitoring } from '../../lib/consumer-monitoring.js';
import { InboxTable } from '../../lib/inbox-table.js';
import { KafkaConsumer } from '../../lib/kafka-consumer.js';
import { OperatorPolicy } from '../../lib/operator-policy.js';
import { UserError } from '../../operator/cli/user-error.js';
import type { OperatorIo } from '../../operator/commands/operator-io.js';
import { runOperator } from '../../operator/operator-main.js';
import { MskInboxStack } from '../../sample/app/msk-inbox-stack.js';
import { EXAMPLE_CLUSTER_ARN, FIXTURE_ENTRY, type Resource } from './support.js';

type Reference = { Ref: string } | { 'Fn::GetAtt': [string, string] };

/** The logical id (or pseudo parameter) a reference names. */
function referenced(part: Reference): string {
  return 'Ref' in part ? part.Ref : part['Fn::GetAtt'][0];
}

/** The description as CloudWatch shows it, with each reference as `<logicalid>-value` or `<pseudo parameter>-value`. */
function rendered(description: unknown): string {
  if (typeof description === 'string') return description;
  const [separator, parts] = (description as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  return parts
    .map((part) =>
      typeof part === 'string'
        ? part
        : `${referenced(part as Reference).replace('AWS::', '')}-value`.toLowerCase(),
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

describe('a consumer whose failed records go to SQS', () => {
  it("has no failure bucket, and neither the alarm nor the operators' policy points at one", () => {
    const app = new App({ builtinCloudFormationValidation: false });
    const stack = new Stack(app, 'QueueDestination');
    const inbox = new InboxTable(stack, 'Inbox');
    const consumer = new KafkaConsumer(stack, 'Orders', {
      consumerName: 'order-consumer',
      source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
      topic: 'orders',
      consumerGroupId: 'order-consumer',
      inboxTable: inbox,
      entry: FIXTURE_ENTRY,
      onFailure: { kind: 'sqs', queue: new sqs.Queue(stack, 'Failed', { enforceSSL: true }) },
    });
    new ConsumerMonitoring(stack, 'Monitoring', { consumer, tables: { inbox: inbox.table } });
    new OperatorPolicy(stack, 'Operators', { consumer, inboxTable: inbox });
    const template = Template.fromStack(stack);

    expect(consumer.failureBucket).toBeUndefined();
    template.resourceCountIs('AWS::S3::Bucket', 0);
    const dropped = (Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[])
      .map((alarm) => rendered(alarm.Properties.AlarmDescription))
      .find((text) => text.startsWith('Records exhausted their retries'));
    expect(dropped).toMatch(
      /the queue failed\w*-value has each failed batch's partitions and offset ranges \(not the records\): read those records from orders; once the cause is fixed, produce them to orders again/,
    );
    expect(dropped).not.toContain('msk-inbox');
    const policy = JSON.stringify(template.findResources('AWS::IAM::ManagedPolicy'));
    expect(policy).toContain('dynamodb:Query');
    expect(policy).not.toContain('s3:');
  });
});
