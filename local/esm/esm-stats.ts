import type { InvocationOutcome } from './lambda-function.js';

/**
 * What an emulated event source mapping counted while it ran: for summaries, progress lines and tests. The
 * Kafka mapping (local/esm/) and the DynamoDB stream mapping (local/streams/) count the same things.
 */
export interface MappingStats {
  invocations: number;
  /** Records handed to the function, counting every redelivery. */
  deliveredRecords: number;
  /** Deliveries of a record that had been delivered before. */
  redeliveredRecords: number;
  /**
   * Records the mapping's filters kept from the function (checkpointed all the same), counting a record
   * again each time it is polled, as Lambda's FilteredOutEventCount does.
   */
  filteredOutRecords: number;
  /** Invocations whose response reported records. */
  partialFailures: number;
  reportedRecords: number;
  /** Responses retried whole because they could not be honoured (e.g. an identifier not in the event). */
  invalidResponses: number;
  functionErrors: number;
  crashes: number;
  timeouts: number;
  bisections: number;
  destinationBatches: number;
  destinationRecords: number;
  /** The latest function error (`<errorType>: <message>`), to say why batches were retried. */
  lastFunctionError: string | undefined;
}

/** The Kafka mapping's counts: the shared ones, and its injected faults. */
export interface EsmStats extends MappingStats {
  /** Injected: successful batches delivered again because their commit was lost. */
  duplicateDeliveries: number;
  /** Injected: fenced second invocations over an overlapping batch. */
  overlappingInvocations: number;
}

export function newMappingStats(): MappingStats {
  return {
    invocations: 0,
    deliveredRecords: 0,
    redeliveredRecords: 0,
    filteredOutRecords: 0,
    partialFailures: 0,
    reportedRecords: 0,
    invalidResponses: 0,
    functionErrors: 0,
    crashes: 0,
    timeouts: 0,
    bisections: 0,
    destinationBatches: 0,
    destinationRecords: 0,
    lastFunctionError: undefined,
  };
}

export function newEsmStats(): EsmStats {
  return { ...newMappingStats(), duplicateDeliveries: 0, overlappingInvocations: 0 };
}

/** Counts an invocation that did not return: a function error (and why), a crash or a timeout. */
export function countFailedInvocation(
  stats: MappingStats,
  outcome: Exclude<InvocationOutcome, { kind: 'returned' }>,
): void {
  if (outcome.kind === 'threw') {
    stats.functionErrors++;
    stats.lastFunctionError = `${outcome.errorType}: ${outcome.errorMessage}`;
  }
  if (outcome.kind === 'crashed') stats.crashes++;
  if (outcome.kind === 'timed-out') stats.timeouts++;
}
