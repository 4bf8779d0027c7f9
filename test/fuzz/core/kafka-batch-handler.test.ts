/**
 * Fuzzing the engine's handler (decode → dedup key → processor → response) with events no producer should
 * send (test/fuzz/support/malformed-events.ts), on the in-memory inbox so thousands of cases stay fast. The
 * deployed chain on DynamoDB Local gets its own fuzz in test/fuzz/sample/inbox-consumer-handler.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toEngineEffect } from '../../../lambdas/core/create-inbox-consumer.js';
import { DEFAULT_DEDUP_KEY_POLICY } from '../../../lambdas/core/dedup-key.js';
import { InboxStoreError, InvalidEventError } from '../../../lambdas/core/errors.js';
import { createKafkaBatchHandler } from '../../../lambdas/core/kafka-batch-handler.js';
import { isReported, type RecordOutcome } from '../../../lambdas/core/outcome.js';
import { HANDLER_SETTINGS } from '../../../lambdas/core/settings.js';
import { orderConsumer, skipOtherEventTypes } from '../../../sample/order-consumer/order-placed.js';
import { ManualClock } from '../../support/clocks.js';
import { MemoryInboxStore } from '../../support/memory-inbox-store.js';
import {
  asDelivered,
  badEnvelope,
  foreignIdentifiers,
  hashOf,
  NO_RESPONSE_PROBLEMS,
  recordsOf,
  rejectionOf,
  responseProblems,
  responseUnlessUnreportable,
  validEnvelope,
} from '../support/malformed-events.js';

function engine(refuse: (key: string) => boolean = () => false) {
  const clock = new ManualClock();
  const store = new MemoryInboxStore(clock);
  store.failOn = (operation, key) =>
    refuse(key) ? new InboxStoreError(`DynamoDB ${operation} failed: ServiceUnavailable`) : undefined;
  let observed: readonly RecordOutcome[] = [];
  const handle = createKafkaBatchHandler({
    store,
    effect: toEngineEffect(orderConsumer('app')),
    skipRecord: skipOtherEventTypes,
    dedupKeyPolicy: DEFAULT_DEDUP_KEY_POLICY,
    clock,
    deadlineMarginMs: 3_000,
    leaseMarginMs: 10_000,
    partitionConcurrency: 4,
    // The default group size: groups form, are cut and fail as deployed.
    transactGroupMaxRecords: HANDLER_SETTINGS.transactGroupMaxRecords.default,
    telemetry: {
      batchProcessed: (_summary, outcomes) => {
        observed = outcomes;
      },
    },
  });
  return {
    store,
    invoke: (event: unknown) => handle(event, { getRemainingTimeInMillis: () => 60_000 }),
    outcomes: () => observed,
  };
}

/** What the store holds that no acked record accounts for: each row must be a processed or quarantined record's. */
function rowsOfReportedRecords(e: ReturnType<typeof engine>): string[] {
  const acked = e.outcomes().filter((o) => !isReported(o.status));
  const processedKeys = new Set(acked.filter((o) => o.status === 'processed').map((o) => o.dedupKey));
  const quarantined = new Set(acked.filter((o) => o.status === 'quarantined').map((o) => o.quarantineKey));
  return [
    ...[...e.store.rows.keys()].filter((key) => !processedKeys.has(key)).map((key) => `row ${key}`),
    ...[...e.store.quarantined.keys()].filter((c) => !quarantined.has(c)).map((c) => `quarantine ${c}`),
  ];
}

/**
 * Per partition, once a record is reported no later one applied anything (Kafka's checkpoint never skips;
 * the response names them all from the lowest reported offset on). A later record may have settled without
 * a write while the group before it was still committing: skipped, or a duplicate of a copy already applied.
 */
function reportedAreSuffixes(outcomes: readonly RecordOutcome[]): boolean {
  const seenReported = new Set<string>();
  const wroteNothing = (outcome: RecordOutcome) =>
    outcome.status === 'skipped' || outcome.status === 'duplicate';
  for (const outcome of outcomes) {
    if (isReported(outcome.status)) seenReported.add(outcome.partitionKey);
    else if (seenReported.has(outcome.partitionKey) && !wroteNothing(outcome)) return false;
  }
  return true;
}

describe('Kafka batch handler under fuzzed events', () => {
  it('gives every record one final outcome and never throws when records are malformed in any way', async () => {
    await fc.assert(
      fc.asyncProperty(validEnvelope, async (event) => {
        const e = engine();
        const response = await e.invoke(event);

        const outcomes = e.outcomes();
        expect(outcomes.map((o) => o.coordinates).sort()).toEqual(
          recordsOf(event)
            .map((r) => r.coordinates)
            .sort(),
        );
        expect(foreignIdentifiers(event, response)).toEqual([]);
        expect(response.batchItemFailures).toEqual([]);
        // Its row, or (two records claiming one offset, which Kafka never sends) the row of the first.
        for (const outcome of outcomes.filter((o) => o.status === 'quarantined')) {
          expect(e.store.quarantined.has(outcome.quarantineKey ?? '')).toBe(true);
        }
        // One processed record per applied key, and nothing stored that no acked record accounts for.
        const processed = outcomes.filter((o) => o.status === 'processed').map((o) => o.dedupKey);
        expect(new Set(processed).size).toBe(processed.length);
        expect(rowsOfReportedRecords(e)).toEqual([]);
      }),
      { numRuns: 1_200 },
    );
  }, 60_000);

  it('writes nothing for a reported record and names every record from the lowest reported one on when the store refuses some keys', async () => {
    await fc.assert(
      fc.asyncProperty(validEnvelope, fc.integer({ min: 0, max: 2 ** 30 }), async (event, salt) => {
        const e = engine((key) => (hashOf(`${salt}:${key}`) & 1) === 0);
        const response = await responseUnlessUnreportable(e.invoke, event);
        if (!response) return;
        const outcomes = e.outcomes();
        // Every reported record is named, only records of this event are, and nothing from the lowest
        // reported offset on is left out (Kafka's checkpoint would skip it).
        expect(responseProblems(event, response, outcomes)).toEqual(NO_RESPONSE_PROBLEMS);
        expect(reportedAreSuffixes(outcomes)).toBe(true);
        expect(rowsOfReportedRecords(e)).toEqual([]);
      }),
      { numRuns: 800 },
    );
  }, 60_000);

  it('fails with one InvalidEventError and touches nothing when the envelope is unusable', async () => {
    await fc.assert(
      fc.asyncProperty(badEnvelope, async (event) => {
        const e = engine();
        const error = await rejectionOf(e.invoke(asDelivered(event)));

        expect(error).toBeInstanceOf(InvalidEventError);
        expect((error as Error).message).toMatch(/Kafka event|records/);
        expect(e.store.calls).toEqual([]);
      }),
      { numRuns: 500 },
    );
  }, 30_000);
});
