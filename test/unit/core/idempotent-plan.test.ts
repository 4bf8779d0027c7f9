/**
 * Where an `idempotent` plan runs in the processor, on the memory store: alone, in its partition's offset
 * order, never in a group's transaction; and refused, in one line, by a store that keeps no DynamoDB items.
 */
import { describe, expect, it } from 'vitest';
import { processBatch } from '../../../lambdas/core/batch-processor.js';
import type { Clock } from '../../../lambdas/core/clock.js';
import { decodeEvent } from '../../../lambdas/core/decode-event.js';
import type { Effect, EffectWrite } from '../../../lambdas/core/effect.js';
import type {
  CommitGroupOptions,
  CommitMember,
  CommitResult,
  IdempotentResult,
} from '../../../lambdas/core/inbox-store.js';
import type { RecordOutcome } from '../../../lambdas/core/outcome.js';
import { IDEMPOTENT_NEEDS_DYNAMODB } from '../../../lambdas/postgres/postgres-inbox-store.js';
import { ManualClock } from '../../support/clocks.js';
import { kafkaEvent, type RecordSpec } from '../../support/kafka-events.js';
import { MemoryInboxStore } from '../../support/memory-inbox-store.js';
import { processorOptions } from '../../support/processor-options.js';

const APP = 'app';

/** The memory store, recording in order each request: a group's dedup keys, or an idempotent plan's item. */
class RequestRecordingStore extends MemoryInboxStore {
  readonly requests: string[] = [];
  unsupported: string | undefined;
  constructor(clock: Clock) {
    super(clock);
  }
  override async commitGroup(
    members: readonly CommitMember[],
    _options?: CommitGroupOptions,
  ): Promise<CommitResult[]> {
    this.requests.push(`group ${members.map((member) => member.entry.dedupKey).join(',')}`);
    return super.commitGroup(members);
  }
  override async applyIdempotent(writes: readonly EffectWrite[]): Promise<IdempotentResult> {
    if (this.unsupported !== undefined) return { kind: 'unsupported', message: this.unsupported };
    this.requests.push(
      `idempotent ${writes.map((write) => ('Put' in write ? write.Put.Item.pk : '?')).join(',')}`,
    );
    return super.applyIdempotent(writes);
  }
}

/** `idem: true` records put an item they own; the others commit a transactional write. */
const effect: Effect = ({ record, dedupKey }) => {
  const value = (record.json.ok ? record.json.value : {}) as { idem?: boolean };
  const write: EffectWrite = { Put: { TableName: APP, Item: { pk: `item#${dedupKey}` } } };
  return value.idem ? { kind: 'idempotent', writes: [write] } : { kind: 'transact', writes: [write] };
};

function setup() {
  const clock = new ManualClock();
  const store = new RequestRecordingStore(clock);
  const options = processorOptions(store, clock, { effect, transactGroupMaxRecords: 25 });
  const run = (specs: RecordSpec[]) => processBatch(decodeEvent(kafkaEvent(specs)), options);
  return { store, run };
}

const record = (offset: number, idem = false): RecordSpec => ({
  offset,
  headers: { event_id: `e${offset}` },
  value: idem ? { idem } : {},
});

const statuses = (outcomes: readonly RecordOutcome[]) => outcomes.map((o) => `${o.offset} ${o.status}`);

describe('an idempotent plan in a batch', () => {
  it('runs alone in its offset order: the open group commits before it, never with it', async () => {
    const { store, run } = setup();

    const outcomes = await run([record(1), record(2), record(3, true), record(4), record(5)]);

    expect(statuses(outcomes)).toEqual([
      '1 processed',
      '2 processed',
      '3 processed',
      '4 processed',
      '5 processed',
    ]);
    expect(store.requests).toEqual(['group e1,e2', 'idempotent item#e3', 'group e4,e5']);
    // No inbox row for it: only the transactional records have one.
    expect([...store.rows.keys()]).toEqual(['e1', 'e2', 'e4', 'e5']);
  });

  it('reports every record as systemic where the store keeps no DynamoDB items (Postgres)', async () => {
    const { store, run } = setup();
    store.unsupported = IDEMPOTENT_NEEDS_DYNAMODB;

    const [outcome] = await run([record(1, true)]);

    expect(outcome).toMatchObject({
      status: 'failed',
      reason: 'systemic-store-error',
      detail: IDEMPOTENT_NEEDS_DYNAMODB,
    });
  });
});
