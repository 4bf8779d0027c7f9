import { type BatchProcessorOptions, processBatch } from './batch-processor.js';
import { toBatchResponse } from './batch-response.js';
import { type BatchSummary, summarizeBatch } from './batch-summary.js';
import { decodeEvent } from './decode-event.js';
import type { InvocationClock, KafkaBatchResponse } from './kafka-event.js';
import type { RecordOutcome } from './outcome.js';
import { RefusalStreak } from './refusal-streak.js';
import type { ValueFormat } from './value-format.js';

/** Where a batch's outcomes go: logs and metrics in Lambda, assertions in tests. */
export interface BatchTelemetry {
  batchProcessed(summary: BatchSummary, outcomes: readonly RecordOutcome[]): void;
}

export type KafkaBatchHandlerOptions = Omit<BatchProcessorOptions, 'remainingTimeMs'> & {
  readonly telemetry: BatchTelemetry;
  /** How record values are read (value-format.ts). @default JSON */
  readonly valueFormat?: ValueFormat;
};

/** decode → process → respond, with no Lambda or SDK dependency: the handler wires it. */
export function createKafkaBatchHandler(
  options: KafkaBatchHandlerOptions,
): (event: unknown, context: InvocationClock) => Promise<KafkaBatchResponse> {
  // Lives as long as the handler, i.e. the Lambda container: a streak of refusals spans its invocations.
  const refusals = new RefusalStreak();
  return async (event, context) => {
    const startedMs = options.clock.nowMs();
    // A bad envelope throws here: Lambda then retries (or bisects) the whole batch.
    const partitions = decodeEvent(event, options.valueFormat);
    const outcomes = await processBatch(partitions, {
      refusals,
      ...options,
      remainingTimeMs: () => context.getRemainingTimeInMillis(),
    });
    const response = toBatchResponse(outcomes);
    options.telemetry.batchProcessed(
      summarizeBatch(partitions, outcomes, startedMs, options.clock.nowMs()),
      outcomes,
    );
    return response;
  };
}
