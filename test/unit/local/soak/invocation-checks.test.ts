/**
 * The soak's check that an unreachable store acks nothing that needed a write (local/soak/
 * invocation-checks.ts): a record the response names is not acked, whatever its own status; a duplicate
 * of a key whose completion died in flight may be the container's cache answering from what the server
 * applied; a duplicate of a key nobody completed, or a processed record, is a violation.
 */
import { describe, expect, it } from 'vitest';
import { dedupRowKey } from '../../../../lambdas/core/inbox-rows.js';
import type { OutcomeStatus, RecordOutcome } from '../../../../lambdas/core/outcome.js';
import type { MskEvent, MskEventRecord } from '../../../../local/esm/msk-event.js';
import type { Attempt } from '../../../../local/soak/attempt.js';
import { InvocationChecks } from '../../../../local/soak/invocation-checks.js';
import { Journal, Sequence } from '../../../../local/soak/journal.js';
import { Recorder, type RunState } from '../../../../local/soak/run-state.js';

const CONSUMER = 'soak-test';
const PARTITION = 'orders-0';

const record = (offset: number): MskEventRecord => ({
  topic: 'orders',
  partition: 0,
  offset,
  timestamp: 0,
  timestampType: 'CREATE_TIME',
  key: null,
  value: null,
  headers: [],
});

const event: MskEvent = {
  eventSource: 'aws:kafka',
  bootstrapServers: 'b-1:9098',
  records: { [PARTITION]: [record(0), record(1)] },
};

const outcome = (offset: number, status: OutcomeStatus, dedupKey: string): RecordOutcome => ({
  partitionKey: PARTITION,
  offset,
  coordinates: `${PARTITION}@${offset}`,
  status,
  dedupKey,
});

/** An attempt during an outage, its outcomes, and a journal with one completion of `e1` by another one. */
function checked(
  outcomes: readonly RecordOutcome[],
  response: unknown,
  completion: 'applied' | 'failed' | 'in-flight-at-death',
): string[] {
  const attempt = { id: 'r1-primary', plan: { outage: true } } as unknown as Attempt;
  const other = { id: 'r0-companion' } as unknown as Attempt;
  const journal = new Journal(new Sequence());
  const completed = completion === 'applied';
  const request = {
    operation: 'complete' as const,
    transaction: false,
    pk: dedupRowKey(CONSUMER, 'e1'),
    pks: [dedupRowKey(CONSUMER, 'e1')],
    token: 't',
  };
  journal.record(other, request, completed, journal.sending(), completion === 'in-flight-at-death');
  const recorder = new Recorder(1, false);
  const state = {
    recorder,
    journal,
    workload: { consumer: CONSUMER },
    outcomes: new Map([[attempt, outcomes]]),
  } as unknown as RunState;
  new InvocationChecks(state).checkInvocation(attempt, event, response);
  return recorder.violations.map((violation) => violation.invariant);
}

describe('an outage acks nothing that needed a write', () => {
  it('does not count a duplicate the response names after a failed record as acked', () => {
    const outcomes = [outcome(0, 'failed', 'e0'), outcome(1, 'duplicate', 'e1')];
    const failedBoth = {
      batchItemFailures: [0, 1].map((offset) => ({ itemIdentifier: { partition: PARTITION, offset } })),
    };

    expect(checked(outcomes, failedBoth, 'failed')).toEqual([]);
  });

  it('lets a duplicate be acked when some attempt completed its key, or died with the completion in flight', () => {
    const duplicates = [outcome(0, 'duplicate', 'e1'), outcome(1, 'duplicate', 'e1')];

    expect(checked(duplicates, { batchItemFailures: [] }, 'applied')).toEqual([]);
    expect(checked(duplicates, { batchItemFailures: [] }, 'in-flight-at-death')).toEqual([]);
  });

  it('reports a duplicate acked for a key nobody completed, and a processed record acked', () => {
    const duplicates = [outcome(0, 'duplicate', 'e1'), outcome(1, 'duplicate', 'e1')];
    const processed = [outcome(0, 'processed', 'e0'), outcome(1, 'processed', 'e2')];

    expect(checked(duplicates, { batchItemFailures: [] }, 'failed')).toEqual(['outage-acks-nothing']);
    expect(checked(processed, { batchItemFailures: [] }, 'applied')).toEqual(['outage-acks-nothing']);
  });
});
