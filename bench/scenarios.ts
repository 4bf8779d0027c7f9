/**
 * The MSK batches every contender gets, built once from a fixed seed so each contender and each run sees
 * byte-identical events. Records are OrderPlaced events keyed (Kafka key) by account, and an account
 * always lands on the same partition, as Kafka's key partitioner does: concurrent work never touches the
 * same account item, so no contender pays for transaction conflicts the workload did not ask for.
 */
import type { KafkaEvent } from '../lambdas/core/kafka-event.js';
import { type Random, randomInt, seededRandom } from '../local/esm/seeded-random.js';
import { kafkaEvent, type RecordSpec } from '../test/support/kafka-events.js';

export const SCENARIO_NAMES = ['new-4p', 'redelivery-4p', 'dups20-4p', 'keys-1p'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export const SCENARIO_DESCRIPTIONS: Readonly<Record<ScenarioName, string>> = {
  'new-4p': '2,000 new records over 4 partitions (64 account keys per partition)',
  'redelivery-4p': 'the same 2,000 records delivered again to the same container: all duplicates',
  'dups20-4p': '2,000 records over 4 partitions, 20% of them in-batch copies of an earlier record',
  'keys-1p': '512 new records on one partition, 64 distinct account keys (8 each)',
};

/** One invocation of a sequence; only deliveries naming a scenario are timed and counted. */
export interface Delivery {
  readonly scenario: ScenarioName;
  readonly event: KafkaEvent;
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
}

export function buildSequences(): Sequence[] {
  const fresh = orderWorkload({
    records: 2_000,
    partitions: 4,
    keysPerPartition: 64,
    duplicateShare: 0,
    seed: 1,
    prefix: 'n',
  });
  const dups = orderWorkload({
    records: 2_000,
    partitions: 4,
    keysPerPartition: 64,
    duplicateShare: 0.2,
    seed: 2,
    prefix: 'd',
  });
  const keys = orderWorkload({
    records: 512,
    partitions: 1,
    keysPerPartition: 64,
    duplicateShare: 0,
    seed: 3,
    prefix: 'k',
  });
  return [
    {
      name: 'new then redelivered',
      deliveries: [
        { scenario: 'new-4p', event: fresh.event, records: fresh.records },
        { scenario: 'redelivery-4p', event: fresh.event, records: fresh.records },
      ],
      expectedBalances: fresh.expectedBalances,
    },
    {
      name: 'in-batch duplicates',
      deliveries: [{ scenario: 'dups20-4p', event: dups.event, records: dups.records }],
      expectedBalances: dups.expectedBalances,
    },
    {
      name: 'one partition, many keys',
      deliveries: [{ scenario: 'keys-1p', event: keys.event, records: keys.records }],
      expectedBalances: keys.expectedBalances,
    },
  ];
}

export interface Workload {
  readonly event: KafkaEvent;
  readonly records: number;
  readonly expectedBalances: ReadonlyMap<string, number>;
}

/** A deterministic batch of OrderPlaced records; duplicates repeat an earlier record of the same partition. */
export function orderWorkload(options: WorkloadOptions): Workload {
  const random = seededRandom(options.seed);
  const note = options.noteBytes ? 'x'.repeat(options.noteBytes) : undefined;
  const perPartition: OrderEvent[][] = Array.from({ length: options.partitions }, () => []);
  const expectedBalances = new Map<string, number>();
  for (let index = 0; index < options.records; index += 1) {
    const partition = index % options.partitions;
    const earlier = perPartition[partition] as OrderEvent[];
    if (earlier.length > 0 && random() < options.duplicateShare) {
      // A producer retry: the very same event again, at a later offset of the same partition.
      earlier.push(earlier[randomInt(random, earlier.length)] as OrderEvent);
      continue;
    }
    const order = newOrder(options, random, partition, index, note);
    earlier.push(order);
    expectedBalances.set(order.accountId, (expectedBalances.get(order.accountId) ?? 0) - order.amount);
  }
  const specs = perPartition.flatMap((orders, partition) =>
    orders.map((order, offset) => toRecordSpec(order, partition, offset)),
  );
  return { event: kafkaEvent(specs), records: specs.length, expectedBalances };
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
