/**
 * What a replayed record came to, named once: the replay of a quarantined record (replay-record.ts) and of
 * a failed batch (failed-batches/) count by the same list, and the replay log keeps it.
 */

/** What a replayed record came to, as the inbox shows it after the invocation. */
export type SentOutcome = 'applied' | 'duplicate' | 'skipped' | 'acked' | 'quarantined' | 'failed';

/** The outcomes the consumer acked and that leave nothing to do: the one list every replay counts by. */
export const ACKED_OUTCOMES: readonly string[] = [
  'applied',
  'duplicate',
  'skipped',
  'acked',
] satisfies SentOutcome[];
