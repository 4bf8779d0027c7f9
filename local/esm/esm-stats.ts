/** What the emulated event source mapping counted while it ran: for summaries, progress lines and tests. */
export interface EsmStats {
  invocations: number;
  /** Records handed to the function, counting every redelivery. */
  deliveredRecords: number;
  /** Deliveries of a record that had been delivered before. */
  redeliveredRecords: number;
  /**
   * Records the mapping's filters kept from the function (committed all the same), counting a record again
   * each time it is polled, as Lambda's FilteredOutEventCount does.
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
  /** Injected: successful batches delivered again because their commit was lost. */
  duplicateDeliveries: number;
  /** Injected: fenced second invocations over an overlapping batch. */
  overlappingInvocations: number;
  destinationBatches: number;
  destinationRecords: number;
  /** The latest function error (`<errorType>: <message>`), to say why batches were retried. */
  lastFunctionError: string | undefined;
}

export function newEsmStats(): EsmStats {
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
    duplicateDeliveries: 0,
    overlappingInvocations: 0,
    destinationBatches: 0,
    destinationRecords: 0,
    lastFunctionError: undefined,
  };
}
