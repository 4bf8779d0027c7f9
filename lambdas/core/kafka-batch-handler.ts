import { type BatchProcessorOptions, processBatch } from './batch-processor.js';
import { toBatchResponse } from './batch-response.js';
import { type BatchSummary, summarizeBatch } from './batch-summary.js';
import { type DecodedPartition, decodeEvent } from './decode-event.js';
import type { InvocationClock, KafkaBatchResponse } from './kafka-event.js';
import type { RecordOutcome } from './outcome.js';
import { RefusalStreak } from './refusal-streak.js';
import { type ConsumerTracer, NO_TRACE, startGuarded } from './telemetry/consumer-tracer.js';
import type { ValueFormat } from './value-format.js';

/** Where a batch's outcomes go: logs and metrics in Lambda, assertions in tests. */
export interface BatchTelemetry {
  batchProcessed(summary: BatchSummary, outcomes: readonly RecordOutcome[]): void;
}

export type KafkaBatchHandlerOptions = Omit<BatchProcessorOptions, 'remainingTimeMs' | 'trace'> & {
  readonly telemetry: BatchTelemetry;
  /** How record values are read (value-format.ts). @default JSON */
  readonly valueFormat?: ValueFormat;
  /** Spans of each invocation (telemetry/consumer-tracer.ts). @default none */
  readonly tracer?: ConsumerTracer;
  /** The event source mapping's consumer group, for traces. @default unknown */
  readonly consumerGroupId?: string;
};

/** What the handler reads of Lambda's context: the time left, and for traces the request's names. */
export type BatchInvocationContext = InvocationClock & {
  readonly awsRequestId?: string;
  readonly invokedFunctionArn?: string;
};

/** decode → process → respond, with no Lambda or SDK dependency: the handler wires it. */
export function createKafkaBatchHandler(
  options: KafkaBatchHandlerOptions,
): (event: unknown, context: BatchInvocationContext) => Promise<KafkaBatchResponse> {
  // Lives as long as the handler, i.e. the Lambda container: a streak of refusals spans its invocations.
  const refusals = new RefusalStreak();
  return async (event, context) => {
    const startedMs = options.clock.nowMs();
    const trace = options.tracer
      ? startGuarded(options.tracer, {
          requestId: context.awsRequestId,
          functionArn: context.invokedFunctionArn,
          consumerName: options.consumerName ?? '',
          consumerGroupId: options.consumerGroupId,
        })
      : NO_TRACE;
    let outcomes: RecordOutcome[];
    let partitions: DecodedPartition[];
    try {
      // A bad envelope throws here: Lambda then retries (or bisects) the whole batch.
      partitions = decodeEvent(event, options.valueFormat);
      outcomes = await processBatch(partitions, {
        refusals,
        ...options,
        trace,
        remainingTimeMs: () => context.getRemainingTimeInMillis(),
      });
    } catch (error) {
      trace.end(error);
      throw error;
    }
    trace.end();
    const response = toBatchResponse(outcomes);
    options.telemetry.batchProcessed(
      summarizeBatch(partitions, outcomes, startedMs, options.clock.nowMs()),
      outcomes,
    );
    return response;
  };
}
