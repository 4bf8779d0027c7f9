/**
 * How Lambda reads a Kafka function's response.
 * https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html (PartialBatchResponse)
 */
import type { MskEvent } from './msk-event.js';
import type { TopicPartition } from './record-source.js';

export type ResponseVerdict =
  /** Every record succeeded: commit each partition past its last record. */
  | { readonly kind: 'success' }
  /** Some records failed: per partition key, the lowest reported offset (commit up to it, redeliver from it). */
  | { readonly kind: 'partial'; readonly lowestFailedOffsets: ReadonlyMap<string, number> }
  /** The response cannot be honoured record by record: the whole batch is retried. */
  | { readonly kind: 'invalid'; readonly reason: string };

export function interpretResponse(event: MskEvent, response: unknown): ResponseVerdict {
  // An empty list, null or an empty JSON object all mean the whole batch succeeded.
  if (response === null || response === undefined) return { kind: 'success' };
  if (typeof response !== 'object' || Array.isArray(response)) {
    return { kind: 'invalid', reason: `response is ${describe(response)}, not an object` };
  }
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === null || failures === undefined) return { kind: 'success' };
  if (!Array.isArray(failures)) return { kind: 'invalid', reason: 'batchItemFailures is not a list' };
  if (failures.length === 0) return { kind: 'success' };

  const lowest = new Map<string, number>();
  for (const failure of failures) {
    const identifier = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    // Kafka's itemIdentifier is an object { partition, offset }; a flat string (the SQS/Kinesis form) is invalid.
    if (identifier === null || typeof identifier !== 'object') {
      return {
        kind: 'invalid',
        reason: `itemIdentifier ${describe(identifier)} is not { partition, offset }`,
      };
    }
    const { partition, offset } = identifier as { partition?: unknown; offset?: unknown };
    if (typeof partition !== 'string' || typeof offset !== 'number') {
      return {
        kind: 'invalid',
        reason: `itemIdentifier ${JSON.stringify(identifier)} is not { partition, offset }`,
      };
    }
    // An identifier that names no record of the invoked event makes Lambda retry the whole batch.
    if (!event.records[partition]?.some((record) => record.offset === offset)) {
      return { kind: 'invalid', reason: `itemIdentifier ${partition}@${offset} is not in the event` };
    }
    lowest.set(partition, Math.min(offset, lowest.get(partition) ?? offset));
  }
  return { kind: 'partial', lowestFailedOffsets: lowest };
}

/** What Lambda does with one partition of an invoked batch once the function answered. */
export interface PartitionCheckpoint {
  /** The event's `records` key (`topic-partition`). */
  readonly key: string;
  readonly topicPartition: TopicPartition;
  /** The consumer group's new committed offset: past the last record, or the lowest reported one. */
  readonly commitOffset: number;
  /** Whether records from `commitOffset` on come again (the partition had a reported record). */
  readonly redeliver: boolean;
}

/**
 * Kafka's checkpoint for an honoured response: per partition, commit up to the lowest reported offset and
 * redeliver from it; a partition with nothing reported commits past its last record. The one definition
 * the emulator and the soak's driver both use (assumed for Kafka as AWS documents it for Kinesis:
 * docs/aws-facts.md).
 */
export function checkpoints(
  event: MskEvent,
  verdict: Exclude<ResponseVerdict, { kind: 'invalid' }>,
): PartitionCheckpoint[] {
  const result: PartitionCheckpoint[] = [];
  for (const [key, records] of Object.entries(event.records)) {
    const first = records[0];
    if (!first) continue;
    const lowest = verdict.kind === 'partial' ? verdict.lowestFailedOffsets.get(key) : undefined;
    const last = Math.max(...records.map((record) => record.offset));
    result.push({
      key,
      topicPartition: { topic: first.topic, partition: first.partition },
      commitOffset: lowest ?? last + 1,
      redeliver: lowest !== undefined,
    });
  }
  return result;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${JSON.stringify(value.slice(0, 80))}` : typeof value;
}
