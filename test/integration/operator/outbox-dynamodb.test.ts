/**
 * `msk-inbox outbox list | quarantined | republish` on DynamoDB Local (docs/operate.md#outbox): rows the
 * consumer's appender wrote and the real relay quarantined (outbox-harness.ts), read back through the
 * table and its stream.
 */
import { DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { eventBytes } from '../../../lambdas/core/outbox-appends.js';
import {
  OUTBOX_ATTRIBUTES as A,
  OUTBOX_CHANGE,
  outboxQuarantineKey,
} from '../../../lambdas/core/outbox-rows.js';
import { relayBatch } from '../../../lambdas/outbox-relay/relay-batch.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../local/dynamodb-local/client.js';
import { UserError } from '../../../operator/cli/user-error.js';
import { republishLine } from '../../../operator/commands/outbox-commands.js';
import { runOperator } from '../../../operator/operator-main.js';
import { DynamoDbOperatorOutbox } from '../../../operator/outbox/dynamodb-outbox.js';
import { startCloudFormationStub } from '../../support/cloudformation-stub.js';
import { type RelayHarness, relayHarness, rowIds } from '../../support/relay-harness.js';
import {
  CONSUMER,
  emit,
  listed,
  outboxCli,
  quarantinedIds,
  relay,
  shipped,
  TOPIC,
} from './outbox-harness.js';
import { collectingIo } from './postgres-harness.js';

let h: RelayHarness;

beforeEach(async () => {
  h = await relayHarness();
});

const MINUTE = 60_000;

describe('outbox list', () => {
  it('shows each key’s pending events, bytes and oldest age, the longest waiting first, and the totals', async () => {
    const a = [shipped('customer-1', 'a1'), shipped('customer-1', 'a22')];
    const [a1] = await emit(h, 'order-1', a);
    h.clock.advance(MINUTE);
    const [b1] = await emit(h, 'order-2', [shipped('customer-2', 'b1')]);
    const now = h.clock.nowMs() + 4 * MINUTE;

    const json = await listed(h, [], now);

    expect(json.keys).toEqual([
      {
        ...{ consumer: CONSUMER, topic: TOPIC, key: 'customer-1', events: 2, headId: a1 },
        bytes: a.reduce((sum, event) => sum + eventBytes(event), 0),
        oldestAtMs: now - 5 * MINUTE,
        oldestAgeMs: 5 * MINUTE,
      },
      {
        ...{ consumer: CONSUMER, topic: TOPIC, key: 'customer-2', events: 1, headId: b1 },
        bytes: eventBytes(shipped('customer-2', 'b1')),
        oldestAtMs: now - 4 * MINUTE,
        oldestAgeMs: 4 * MINUTE,
      },
    ]);
    expect(json.total).toMatchObject({ keys: 2, events: 3, oldestAgeMs: 5 * MINUTE });

    const text = (await outboxCli(h, ['outbox', 'list', '--limit', '1'], now)).out;
    expect(text).toMatch(
      new RegExp(`^orders\\s+${TOPIC}\\s+"customer-1"\\s+2\\s+\\d+ B\\s+5m\\s+${a1}$`, 'm'),
    );
    expect(text).not.toContain('customer-2');
    expect(text).toContain('2 keys (1 shown: --limit), 3 events');
    expect(text).toContain('the oldest waited 5m');
  });

  it('lists one consumer’s keys with --consumer, and says so when there are none', async () => {
    await emit(h, 'order-1', [shipped('customer-1', 'a')]);
    const other = await outboxCli(h, ['outbox', 'list', '--consumer', 'payments']);
    expect(other.out).toBe(
      `no unpublished events for consumer payments in outbox table ${h.bench.tableName}`,
    );
  });
});

describe('outbox --stack', () => {
  it('finds the outbox table and the consumer in the stack’s OutboxTableName and ConsumerName outputs', async () => {
    await emit(h, 'order-1', [shipped('customer-1', 'a')]);
    const stub = await startCloudFormationStub({
      Orders: { OutboxTableName: h.bench.tableName, ConsumerName: CONSUMER },
      Old: { ConsumerName: CONSUMER },
    });
    const variables = {
      AWS_ENDPOINT_URL_CLOUDFORMATION: stub.endpoint,
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    };
    const saved = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
    Object.assign(process.env, variables);
    const endpoint = ['--endpoint', inject('dynamoDbEndpoint')];
    try {
      const { io, run } = collectingIo();
      const listing = run(
        await runOperator(['outbox', 'list', '--json', '--stack', 'Orders', ...endpoint], io),
      );
      expect(JSON.parse(listing.out)).toMatchObject({ consumer: CONSUMER, total: { keys: 1, events: 1 } });
      await expect(runOperator(['outbox', 'list', '--stack', 'Old', ...endpoint], io)).rejects.toThrow(
        'which outbox? pass --outbox-table NAME (or set OUTBOX_TABLE_NAME), or --postgres URL for a Postgres outbox; stack Old has no OutboxTableName output',
      );
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await stub.close();
    }
  });
});

describe('outbox quarantined', () => {
  it('lists the events the relay quarantined, with the reason and Kafka’s error', async () => {
    const [, poison] = await emit(h, 'order-1', [
      shipped('customer-1', 'ok'),
      shipped('customer-1', 'x'.repeat(50)),
    ]);
    await relay(h, [poison as string]);

    const json = JSON.parse((await outboxCli(h, ['outbox', 'quarantined', '--json'])).out);
    expect(json).toMatchObject({
      total: 1,
      events: [
        {
          id: poison,
          consumer: CONSUMER,
          topic: TOPIC,
          key: 'customer-1',
          reason: 'message-too-large',
          error: 'message-too-large (fake)',
          quarantinedAtMs: h.clock.nowMs(),
          source: 'order-1',
        },
      ],
    });
    const text = (await outboxCli(h, ['outbox', 'quarantined'])).out;
    expect(text).toMatch(
      new RegExp(
        `^${poison}\\s+orders\\s+${TOPIC}\\s+"customer-1"\\s+message-too-large\\s+2026-11-29 12:00:00Z\\s+message-too-large \\(fake\\)$`,
        'm',
      ),
    );
    expect(await listed(h)).toMatchObject({ total: { keys: 0 } });
  });
});

describe('outbox republish', () => {
  it('appends a quarantined event at the END of its key’s queue and takes it out of quarantine, in one transaction', async () => {
    const [first, poison, third] = await emit(h, 'order-1', [
      shipped('customer-1', '1'),
      shipped('customer-1', 'poison'),
      shipped('customer-1', '3'),
    ]);
    await relay(h, [poison as string]);
    // The key goes on while the poison event waits: a later event is appended after the quarantine.
    const [later] = await emit(h, 'order-2', [shipped('customer-1', '4')]);
    h.clock.advance(MINUTE);

    const run = await outboxCli(h, ['outbox', 'republish', poison as string]);

    expect(run.out).toBe(
      `republished ${poison} (consumer orders, ${TOPIC} key "customer-1"): appended at the end of its key's queue, behind 1 pending event; it now follows the key's later events, not its original place`,
    );
    const row = await h.queueRow('customer-1');
    expect(rowIds(row)).toEqual([later, poison]);
    expect(row).toMatchObject({
      [A.change]: OUTBOX_CHANGE.appended,
      [A.pendingBytes]: eventBytes(shipped('customer-1', '4')) + eventBytes(shipped('customer-1', 'poison')),
    });
    const events = (row?.[A.events] ?? []) as { committed_at: number }[];
    expect(events[1]?.committed_at).toBe(h.clock.nowMs());
    expect(await h.quarantineRow(poison as string)).toBeUndefined();
    expect(await quarantinedIds(h)).toEqual([]);

    // The relay, invoked by the append's stream record, publishes it after the key's later event.
    await relay(h);
    expect(h.broker.ackedIds()).toEqual([first, third, later, poison]);
    expect(await h.queueRow('customer-1')).toBeUndefined();
  });

  it('refuses in one line, changing nothing, when the quarantine row changed between its read and the write', async () => {
    const [poison] = await emit(h, 'order-1', [shipped('customer-1', 'poison')]);
    await relay(h, [poison as string]);
    const documents = DynamoDBDocumentClient.from(h.bench.client);
    // The relay quarantines the event again (a retried stream record) just before the operator's write.
    const racing = new Proxy(documents, {
      get(target, name, receiver) {
        if (name !== 'send') return Reflect.get(target, name, receiver);
        return async (command: unknown) => {
          if (command instanceof TransactWriteCommand) {
            await documents.send(
              new UpdateCommand({
                TableName: h.bench.tableName,
                Key: { [A.pk]: outboxQuarantineKey(CONSUMER, poison as string) },
                UpdateExpression: 'SET #at = :later',
                ExpressionAttributeNames: { '#at': A.quarantinedAt },
                ExpressionAttributeValues: { ':later': h.clock.nowMs() + 1 },
              }),
            );
          }
          return documents.send(command as never);
        };
      },
    });
    const outbox = new DynamoDbOperatorOutbox({ client: racing, tableName: h.bench.tableName });

    const outcome = await outbox.republish(poison as string, CONSUMER, h.clock.nowMs());

    expect(outcome).toMatchObject({
      kind: 'changed',
      detail: 'its quarantine row changed since it was read',
    });
    expect(await h.queueRow('customer-1')).toBeUndefined();
    expect(await h.quarantineRow(poison as string)).toBeDefined();
    const refusal = (() => {
      try {
        return republishLine({ consumer: CONSUMER, outbox }, poison as string, outcome);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(UserError);
    expect((refusal as Error).message).toBe(
      `${poison} (consumer orders, ${TOPIC} key "customer-1") not republished: its quarantine row changed since it was read; run \`msk-inbox outbox republish ${poison}\` again`,
    );
  });

  it('refuses while the key’s queue is at its back-pressure limit, leaving the event quarantined', async () => {
    const [poison] = await emit(h, 'order-1', [shipped('customer-1', 'p'.repeat(20_000))]);
    await relay(h, [poison as string]);
    await emit(h, 'order-2', [shipped('customer-1', 'x'.repeat(250_000))]);
    await emit(h, 'order-3', [shipped('customer-1', 'y'.repeat(60_000))]);

    await expect(outboxCli(h, ['outbox', 'republish', poison as string])).rejects.toThrow(
      /not republished: its key's queue is at its limit of unpublished bytes; wait for the relay/,
    );
    expect(await quarantinedIds(h)).toEqual([poison]);
    expect(rowIds(await h.queueRow('customer-1'))).toHaveLength(2);
  });

  it('touches the queue row of a pending event so the stream hands it to the relay again, events unchanged', async () => {
    const ids = await emit(h, 'order-1', [shipped('customer-1', '1'), shipped('customer-1', '2')]);
    // The relay never ran and the stream's records expired: drain them unread.
    await h.bench.nextEvent({ unfiltered: true });
    const before = await h.queueRow('customer-1');
    h.clock.advance(25 * 60 * MINUTE);

    const run = await outboxCli(h, ['outbox', 'republish', ids[1] as string]);

    expect(run.out).toBe(
      `touched the queue row of ${ids[1]} (consumer orders, ${TOPIC} key "customer-1", 2 pending): its stream invokes the relay again, which publishes the key's events in order`,
    );
    // An update that changes nothing writes no stream record: the touch must change the row.
    const event = await h.bench.nextEvent();
    expect(event.Records).toHaveLength(1);
    const after = await h.queueRow('customer-1');
    expect(after).toEqual({ ...before, [A.change]: OUTBOX_CHANGE.appended, [A.touchedAt]: h.clock.nowMs() });
    h.broker.answer = () => 'published';
    await relayBatch(event, h.deps());
    expect(h.broker.ackedIds()).toEqual(ids);
  });

  it('says in one line that an id is neither quarantined nor pending (exit 2)', async () => {
    await emit(h, 'order-1', [shipped('customer-1', '1')]);
    const unknown = '00000000-0000-5000-8000-000000000000';
    await expect(outboxCli(h, ['outbox', 'republish', unknown])).rejects.toThrow(
      new UserError(
        `no outbox event ${unknown} for consumer orders in outbox table ${h.bench.tableName}, neither quarantined nor pending: \`msk-inbox outbox quarantined\` prints the ids`,
      ),
    );
  });
});
