/**
 * Taking published events out of their queue row (lambdas/outbox-relay/queue-removal.ts) on DynamoDB
 * Local: in writes of at most MAX_EVENTS_PER_REMOVAL, each conditioned, the row's bookkeeping moved with
 * them, and nothing removed that was not settled.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { OUTBOX_ATTRIBUTES as A } from '../../../lambdas/core/outbox-rows.js';
import {
  MAX_EVENTS_PER_REMOVAL,
  readRow,
  removeSettled,
} from '../../../lambdas/outbox-relay/queue-removal.js';
import { pendingBytesOf } from '../../../lambdas/outbox-relay/queue-row.js';
import { relayBatch } from '../../../lambdas/outbox-relay/relay-batch.js';
import { queueKey } from '../../support/outbox-relay.js';
import {
  COMMITTED_AT,
  CONSUMER,
  type RelayHarness,
  relayHarness,
  rowIds,
  TOPIC,
} from '../../support/relay-harness.js';
import { faultyClient } from '../../support/sdk-faults.js';

let h: RelayHarness;

beforeEach(async () => {
  h = await relayHarness();
});

describe('removing published events', () => {
  it('removes a long row in bounded writes, leaving what was appended after its image with its bookkeeping', async () => {
    const count = MAX_EVENTS_PER_REMOVAL * 2 + 20;
    const values = Array.from({ length: count }, (_, index) => `{"n":${index}}`);
    const ids = await h.append('customer-1', 'order-1', values);
    const event = await h.bench.nextEvent();
    const [later] = await h.append('customer-1', 'order-2', ['{"n":"later"}'], {
      committedAt: COMMITTED_AT + 5_000,
    });

    // No fault: the client only records the requests.
    const recording = faultyClient(() => undefined);

    const { response } = await relayBatch(
      event,
      h.deps({ table: { client: recording.client, tableName: h.bench.tableName } }),
    );

    expect(response.batchItemFailures).toEqual([]);
    // Two Updates of MAX_EVENTS_PER_REMOVAL; the Delete of what is left finds the later append, so the row
    // is read again and the rest removed by an Update.
    expect(recording.attempts.map((call) => call.commandName)).toEqual([
      'UpdateItemCommand',
      'UpdateItemCommand',
      'DeleteItemCommand',
      'GetItemCommand',
      'UpdateItemCommand',
    ]);
    expect(h.broker.calls).toHaveLength(1);
    expect(h.broker.ackedIds()).toEqual(ids);
    expect(await h.queueRow('customer-1')).toMatchObject({
      [A.events]: [expect.objectContaining({ id: later })],
      [A.pendingBytes]: pendingBytesOf('{"n":"later"}', 'customer-1', { type: 'order-shipped' }),
      [A.oldestAt]: COMMITTED_AT + 5_000,
    });
  });

  it('finds settled events gone when the row was deleted meanwhile, and writes nothing', async () => {
    await h.append('customer-1', 'order-1', ['{"n":1}']);
    const row = await readRow(
      { client: h.bench.client, tableName: h.bench.tableName },
      queueKey(CONSUMER, TOPIC, 'customer-1'),
    );
    if (!row) throw new Error('no row');
    await relayBatch(await h.bench.nextEvent(), h.deps());

    const removal = await removeSettled(
      { client: h.bench.client, tableName: h.bench.tableName },
      row,
      row.events.map((event) => ({ event })),
      h.clock.nowMs(),
    );

    expect(removal).toEqual({
      gone: new Set(row.events.map((event) => event.id)),
      quarantined: [],
      left: [],
    });
  });

  it('never removes an event it was not given, even one the row holds first', async () => {
    const [first, second] = await h.append('customer-1', 'order-1', ['{"n":1}', '{"n":2}']);
    const table = { client: h.bench.client, tableName: h.bench.tableName };
    const row = await readRow(table, queueKey(CONSUMER, TOPIC, 'customer-1'));
    if (!row) throw new Error('no row');

    const removal = await removeSettled(
      table,
      row,
      [{ event: row.events[1] as (typeof row.events)[1] }],
      h.clock.nowMs(),
    );

    expect(removal).toEqual({ gone: new Set(), quarantined: [], left: [second] });
    expect(rowIds(await h.queueRow('customer-1'))).toEqual([first, second]);
  });
});
