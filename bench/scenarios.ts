/**
 * The MSK batches every contender gets, built once from a fixed seed so each contender and each run sees
 * byte-identical events. Records are OrderPlaced events keyed (Kafka key) by account, and an account
 * always lands on the same partition, as Kafka's key partitioner does: concurrent work never touches the
 * same account item, so no contender pays for transaction conflicts the workload did not ask for.
 */
import type { KafkaEvent } from '../lambdas/core/kafka-event.js';
import { type Random, randomInt, seededRandom } from '../local/esm/seeded-random.js';
import { kafkaEvent, type RecordSpec } from '../test/support/kafka-events.js';

export const SCENARIO_NAMES = ['new-4p', 'redelivery-4p', 'dups20-4p', 'keys-1p', 'hot-1p'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/**
 * The records a batch of hot-1p holds: Lambda's default BatchSize for Kafka, and the KafkaConsumer
 * construct's default (docs/aws-facts.md, lib/kafka-consumer-props.ts). A partition's batches are invoked
 * one at a time, so a hot partition's throughput is what one container does batch after batch.
 */
export const HOT_BATCH_RECORDS = 100;

export const SCENARIO_DESCRIPTIONS: Readonly<Record<ScenarioName, string>> = {
  'new-4p': '2,000 new records over 4 partitions (64 account keys per partition)',
  'redelivery-4p': 'the same 2,000 records delivered again to the same container: all duplicates',
  'dups20-4p': '2,000 records over 4 partitions, 20% of them in-batch copies of an earlier record',
  'keys-1p': '512 new records on one partition, 64 distinct account keys (8 each)',
  'hot-1p': `5,000 new records on one partition over 500 account keys, in ${HOT_BATCH_RECORDS}-record batches (the ESM's default BatchSize) invoked one after another`,
};

/**
 * With a modelled network (rttMs > 0) a record costs milliseconds of waiting, and Powertools' four round trips
 * at 20 ms would take minutes on the full scenarios: the sweep runs the first records of each partition of the
 * very same workloads (same keys, same duplicates; hot-1p: its first batches), the same for every contender.
 */
export const SWEEP_RECORDS_PER_PARTITION: Readonly<Record<string, number>> = {
  '4p': 100,
  'keys-1p': 128,
  'hot-1p': 5 * HOT_BATCH_RECORDS,
};

/** Full-size scenarios (RTT 0) or the prefixes the RTT sweep runs. */
export type SequenceSize = 'full' | 'sweep';

/** One scenario of a sequence: its batches, invoked one after another on the same container, timed together. */
export interface Delivery {
  readonly scenario: ScenarioName;
  readonly batches: readonly KafkaEvent[];
  readonly records: number;
}

/**
 * Deliveries that share one fresh container and fresh tables: the redelivery scenario is the second
 * delivery of the new-records batch, to the container that processed it first.
 */
export interface Sequence {
  readonly name: string;
  readonly deliveries: readonly Delivery[];
  /** Balance of each account once the sequence is done, every distinct event applied exactly once. */
  readonly expectedBalances: ReadonlyMap<string, number>;
  /**
   * At rttMs 0, run only in the first runs (as the ablations are): its slow contenders take half a minute
   * each, and its question (what grouping buys a hot partition) is the sweep's.
   */
  readonly fewerRuns?: boolean;
}

interface OrderEvent {
  readonly eventId: string;
  readonly orderId: string;
  readonly accountId: string;
  readonly amount: number;
  readonly partition: number;
  /** Extra bytes in the value, to reach a target batch size. */
  readonly note?: string;
}

export interface WorkloadOptions {
  readonly records: number;
  readonly partitions: number;
  readonly keysPerPartition: number;
  /** Share of records that repeat an earlier record of their partition (same event, later offset). */
  readonly duplicateShare: number;
  readonly seed: number;
  readonly prefix: string;
  readonly noteBytes?: number;
  /** Keep only each partition's first records (a prefix: same events, same keys), for the RTT sweep. */
  readonly limitPerPartition?: number;
  /** Split the records into batches of this many, in partition and offset order; one batch when absent. */
  readonly batchRecords?: number;
}

export function buildSequences(size: SequenceSize = 'full'): Sequence[] {
  const limit = (name: string) => (size === 'sweep' ? SWEEP_RECORDS_PER_PARTITION[name] : undefined);
  const fresh = orderWorkload({
    records: 2_000,
    partitions: 4,
    keysPerPartition: 64,
    duplicateShare: 0,
    seed: 1,
    prefix: 'n',
    limitPerPartition: limit('4p'),
  });
  const dups = orderWorkload({
    records: 2_000,
    partitions: 4,
    keysPerPartition: 64,
    duplicateShare: 0.2,
    seed: 2,
    prefix: 'd',
    limitPerPartition: limit('4p'),
  });
  const keys = orderWorkload({
    records: 512,
    partitions: 1,
    keysPerPartition: 64,
    duplicateShare: 0,
    seed: 3,
    prefix: 'k',
    limitPerPartition: limit('keys-1p'),
  });
  const hot = orderWorkload({
    records: 5_000,
    partitions: 1,
    keysPerPartition: 500,
    duplicateShare: 0,
    seed: 5,
    prefix: 'h',
    limitPerPartition: limit('hot-1p'),
    batchRecords: HOT_BATCH_RECORDS,
  });
  return [
    {
      name: 'new then redelivered',
      deliveries: [
        { scenario: 'new-4p', batches: fresh.batches, records: fresh.records },
        { scenario: 'redelivery-4p', batches: fresh.batches, records: fresh.records },
      ],
      expectedBalances: fresh.expectedBalances,
    },
    {
      name: 'in-batch duplicates',
      deliveries: [{ scenario: 'dups20-4p', batches: dups.batches, records: dups.records }],
      expectedBalances: dups.expectedBalances,
    },
    {
      name: 'one partition, many keys',
      deliveries: [{ scenario: 'keys-1p', batches: keys.batches, records: keys.records }],
      expectedBalances: keys.expectedBalances,
    },
    {
      name: 'one hot partition',
      deliveries: [{ scenario: 'hot-1p', batches: hot.batches, records: hot.records }],
      expectedBalances: hot.expectedBalances,
      fewerRuns: true,
    },
  ];
}

export interface Workload {
  /** Every record in one event. */
  readonly event: KafkaEvent;
  /** The same records as the batches the options ask for (`[event]` unless `batchRecords` is set). */
  readonly batches: readonly KafkaEvent[];
  readonly records: number;
  readonly expectedBalances: ReadonlyMap<string, number>;
}

/** A deterministic batch of OrderPlaced records; duplicates repeat an earlier record of the same partition. */
export function orderWorkload(options: WorkloadOptions): Workload {
  const random = seededRandom(options.seed);
  const note = options.noteBytes ? 'x'.repeat(options.noteBytes) : undefined;
  const perPartition: OrderEvent[][] = Array.from({ length: options.partitions }, () => []);
  for (let index = 0; index < options.records; index += 1) {
    const partition = index % options.partitions;
    const earlier = perPartition[partition] as OrderEvent[];
    if (earlier.length > 0 && random() < options.duplicateShare) {
      // A producer retry: the very same event again, at a later offset of the same partition.
      earlier.push(earlier[randomInt(random, earlier.length)] as OrderEvent);
      continue;
    }
    earlier.push(newOrder(options, random, partition, index, note));
  }
  const kept = perPartition.map((orders) => orders.slice(0, options.limitPerPartition ?? orders.length));
  // Each distinct event applied once: a duplicate is the very same object as its first copy.
  const expectedBalances = new Map<string, number>();
  for (const order of new Set(kept.flat())) {
    expectedBalances.set(order.accountId, (expectedBalances.get(order.accountId) ?? 0) - order.amount);
  }
  const specs = kept.flatMap((orders, partition) =>
    orders.map((order, offset) => toRecordSpec(order, partition, offset)),
  );
  const event = kafkaEvent(specs);
  const size = options.batchRecords;
  const batches =
    size === undefined
      ? [event]
      : Array.from({ length: Math.ceil(specs.length / size) }, (_, index) =>
          kafkaEvent(specs.slice(index * size, (index + 1) * size)),
        );
  return { event, batches, records: specs.length, expectedBalances };
}

function newOrder(
  options: WorkloadOptions,
  random: Random,
  partition: number,
  index: number,
  note: string | undefined,
): OrderEvent {
  // Account keys are disjoint per partition, as a key partitioner makes them.
  const key = randomInt(random, options.keysPerPartition);
  return {
    eventId: `${options.prefix}-evt-${index}`,
    orderId: `${options.prefix}-ord-${index}`,
    accountId: `${options.prefix}-acct-${partition}-${key}`,
    amount: 1 + randomInt(random, 10_000),
    partition,
    note,
  };
}

function toRecordSpec(order: OrderEvent, partition: number, offset: number): RecordSpec {
  return {
    topic: 'orders',
    partition,
    offset,
    key: order.accountId,
    headers: { event_id: order.eventId },
    value: {
      event_id: order.eventId,
      type: 'OrderPlaced',
      order_id: order.orderId,
      account_id: order.accountId,
      amount: order.amount,
      ...(order.note === undefined ? {} : { note: order.note }),
    },
  };
}

/** Small batches through every code path once, so the first measured run is not the server's (or a JIT's) warm-up. */
export function warmUpSequence(): Sequence {
  const workload = orderWorkload({
    records: 400,
    partitions: 4,
    keysPerPartition: 16,
    duplicateShare: 0.2,
    seed: 9,
    prefix: 'w',
  });
  return {
    name: 'warm-up',
    deliveries: [
      { scenario: 'new-4p', batches: workload.batches, records: workload.records },
      { scenario: 'redelivery-4p', batches: workload.batches, records: workload.records },
    ],
    expectedBalances: workload.expectedBalances,
  };
}

/** Contenders in a run's order: rotated each run, so no contender always follows the same one. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}
