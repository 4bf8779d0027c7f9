import { describe, expect, it } from 'vitest';
import { toBatchResponse } from '../../../lambdas/core/batch-response.js';
import { UnreportableRecordError } from '../../../lambdas/core/errors.js';
import type { OutcomeStatus, RecordOutcome } from '../../../lambdas/core/outcome.js';

const outcome = (
  status: OutcomeStatus,
  offset: number | undefined,
  partitionKey = 'my-topic-3',
): RecordOutcome => ({
  partitionKey,
  offset,
  coordinates: `${partitionKey}@${offset}`,
  status,
});

describe('toBatchResponse', () => {
  it('returns an empty failure list when every record is finished', () => {
    const finished = (['processed', 'duplicate', 'skipped', 'quarantined'] as const).map((s, i) =>
      outcome(s, i),
    );

    expect(toBatchResponse(finished)).toEqual({ batchItemFailures: [] });
  });

  it('names each reported record by its records-map key and numeric offset', () => {
    const response = toBatchResponse([
      outcome('processed', 1),
      outcome('failed', 2),
      outcome('blocked', 3),
      outcome('in-flight', 7, 'other-0'),
      outcome('deferred', 8, 'other-1'),
    ]);

    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: { partition: 'my-topic-3', offset: 2 } },
      { itemIdentifier: { partition: 'my-topic-3', offset: 3 } },
      { itemIdentifier: { partition: 'other-0', offset: 7 } },
      { itemIdentifier: { partition: 'other-1', offset: 8 } },
    ]);
  });

  it('throws when a record to retry has no offset and none before it has, so the whole batch is retried', () => {
    expect(() => toBatchResponse([outcome('failed', undefined)])).toThrow(UnreportableRecordError);
    expect(() => toBatchResponse([outcome('processed', 4, 'other-0'), outcome('failed', undefined)])).toThrow(
      UnreportableRecordError,
    );
  });

  it('names the nearest earlier record for an offset-less record to retry, and everything from it on', () => {
    const response = toBatchResponse([
      outcome('processed', 4),
      outcome('processed', 5),
      outcome('failed', undefined),
      outcome('blocked', 7),
    ]);

    expect(response.batchItemFailures.map((f) => f.itemIdentifier.offset)).toEqual([5, 7]);
  });

  it('needs no name for an offset-less record behind a reported one, in key order too', () => {
    // Per-key ordering: a later key's record may finish while an earlier one failed; outcomes stay in delivery order.
    const response = toBatchResponse([
      outcome('failed', 4),
      outcome('processed', 5),
      outcome('blocked', undefined),
      outcome('processed', 6),
    ]);

    expect(response.batchItemFailures.map((f) => f.itemIdentifier.offset)).toEqual([4, 5, 6]);
  });
});
