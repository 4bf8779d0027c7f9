/**
 * The relay's side of the outbox bench: the stream records a consumer batch appended, filtered as the
 * relay's event source filters them (relay-stream-filter.ts), handed to relayBatch in batches of the
 * relay construct's BatchSize, with a publisher that acknowledges at once, so what is measured is the
 * relay's DynamoDB work: its removals (and GetItem on a race), and the write units they are billed.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { systemClock } from '../../lambdas/core/clock.js';
import { OUTBOX_ATTRIBUTES as A } from '../../lambdas/core/outbox-rows.js';
import { PublishedIds } from '../../lambdas/outbox-relay/published-ids.js';
import type { OutboxMessage, Publisher } from '../../lambdas/outbox-relay/publisher.js';
import { relayBatch } from '../../lambdas/outbox-relay/relay-batch.js';
import { RELAY_STREAM_FILTER } from '../../lambdas/outbox-relay/relay-stream-filter.js';
import { streamEvent } from '../../local/streams/stream-event.js';
import { streamRecordFilter } from '../../local/streams/stream-filter.js';
import { itemSizeBytes, writeUnits } from '../cost/capacity-units.js';
import type { RequestRecorder } from '../cost/request-recorder.js';
import type { StreamRead } from './outbox-stream.js';

/** The relay construct's default BatchSize (lib/outbox-relay-props.ts). */
export const RELAY_BATCH_SIZE = 100;

const passesRelayFilter = streamRecordFilter([RELAY_STREAM_FILTER]);

/** Acknowledges every send, keeping the ids it was given (to check each event went out). */
export class AckingPublisher implements Publisher {
  readonly ids = new Set<string>();
  messages = 0;
  async publish(_topic: string, messages: readonly OutboxMessage[]) {
    for (const message of messages) this.ids.add(message.headers.event_id as string);
    this.messages += messages.length;
    return { kind: 'published' as const };
  }
}

export interface RelayTally {
  invocations: number;
  /** Stream records the filter let through (one per append). */
  records: number;
  milliseconds: number;
  /** Billed write units of the removals, from the size of each row as it was before (bench/cost/capacity-units.ts). */
  wcu: number;
}

export interface RelayDrain {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly recorder: RequestRecorder;
  readonly publisher: AckingPublisher;
  /** One container's memory of what it published, as the deployed handler keeps it. */
  readonly publishedIds: PublishedIds;
  /** Each queue row's size as its latest image shows it: what a removal is billed on. */
  readonly rowBytes: Map<string, number>;
  readonly tally: RelayTally;
}

export function newRelayDrain(
  client: DynamoDBClient,
  tableName: string,
  recorder: RequestRecorder,
): RelayDrain {
  return {
    client,
    tableName,
    recorder,
    publisher: new AckingPublisher(),
    publishedIds: new PublishedIds(),
    rowBytes: new Map(),
    tally: { invocations: 0, records: 0, milliseconds: 0, wcu: 0 },
  };
}

/** Relays `records` (the stream since the last drain) in invocations of at most RELAY_BATCH_SIZE. */
export async function drain(relay: RelayDrain, records: readonly StreamRead[]): Promise<void> {
  for (const { sdk } of records) {
    const image = sdk.dynamodb?.NewImage;
    const pk = sdk.dynamodb?.Keys?.[A.pk]?.S;
    if (pk !== undefined && image) relay.rowBytes.set(pk, itemSizeBytes(image as never));
  }
  const relayed = records.map((read) => read.shardRecord).filter((shard) => passesRelayFilter(shard.event));
  for (let start = 0; start < relayed.length; start += RELAY_BATCH_SIZE) {
    const batch = relayed.slice(start, start + RELAY_BATCH_SIZE);
    relay.recorder.take();
    const started = performance.now();
    const { summary } = await relayBatch(streamEvent(batch), {
      table: { client: relay.client, tableName: relay.tableName },
      publisher: relay.publisher,
      clock: systemClock,
      log: { warn: failOn, error: failOn },
      publishedIds: relay.publishedIds,
    });
    relay.tally.milliseconds += performance.now() - started;
    if (summary.failedSequenceNumber !== undefined) {
      throw new Error(`the relay reported a record: ${JSON.stringify(summary)}`);
    }
    relay.tally.invocations += 1;
    relay.tally.records += batch.length;
    for (const write of relay.recorder.take().writes) {
      const bytes = write.item ? itemSizeBytes(write.item) : relay.rowBytes.get(write.pk);
      if (bytes === undefined) throw new Error(`the relay wrote ${write.pk}, a row the stream never showed`);
      relay.tally.wcu += writeUnits(bytes, write.transactional ? 'transactional' : 'standard');
    }
  }
}

function failOn(message: string, details: Record<string, unknown>): void {
  throw new Error(`relay: ${message} ${JSON.stringify(details)}`);
}
