/**
 * The demo's workload: OrderPlaced events keyed by account, some produced twice (the producer retried),
 * a few poison records, and the state that applying each unique valid event once must give. Values are
 * JSON, or Avro framed as a Confluent registry's serializer writes them (local/orders/order-avro.ts).
 */
import type { ProducedRecord } from '../esm/record-source.js';
import { type Random, randomInt, seededRandom } from '../esm/seeded-random.js';
import { type AvroOrder, encodeAvroOrder, type OrderValueFormat } from '../orders/order-avro.js';

export interface WorkloadOptions {
  readonly topic: string;
  readonly events: number;
  readonly accounts: number;
  /** Share of valid events the producer sends twice (same event_id and bytes, a new offset). */
  readonly duplicateRate: number;
  /** Share of events that are poison: bad JSON (with Avro: garbage bytes), no event_id, or failing the OrderPlaced schema. */
  readonly poisonRate: number;
  readonly seed: number;
  /** @default 'json' */
  readonly valueFormat?: OrderValueFormat;
}

export type PoisonKind = 'bad-json' | 'undecodable' | 'missing-event-id' | 'invalid-amount';

export interface WorkloadRecord extends ProducedRecord {
  /** Set on poison records: the handler must quarantine them. */
  readonly poison?: PoisonKind;
  /** Set on the producer's second copy of an event. */
  readonly producerDuplicate?: boolean;
}

export interface ExpectedState {
  /** `account#<id>` → balance in cents (negative: orders debit it). */
  readonly balances: ReadonlyMap<string, number>;
  /** `order#<id>` → total in cents. */
  readonly orderTotals: ReadonlyMap<string, number>;
  /** The `event_id` of each unique valid event: the dedup key its effect runs under. */
  readonly validEventIds: ReadonlySet<string>;
}

export interface Workload {
  /** In produce order. */
  readonly records: readonly WorkloadRecord[];
  readonly expected: ExpectedState;
  readonly poisonCount: number;
  readonly producerDuplicates: number;
}

/** Per format: one the format cannot read (quarantined as invalid-event for JSON, undecodable for Avro), then the same two. */
const POISON_KINDS: Readonly<Record<OrderValueFormat, readonly PoisonKind[]>> = {
  json: ['bad-json', 'missing-event-id', 'invalid-amount'],
  avro: ['undecodable', 'missing-event-id', 'invalid-amount'],
};

/** How far (in records) after its original a producer duplicate lands: a retry comes soon, not at once. */
const DUPLICATE_SPREAD = 300;

export function generateWorkload(options: WorkloadOptions): Workload {
  const random = seededRandom(options.seed);
  const format = options.valueFormat ?? 'json';
  const poisonKinds = POISON_KINDS[format];
  const encode = format === 'avro' ? (order: AvroOrder) => encodeAvroOrder(order) : encodeJson;
  const ordersByAccount = new Map<string, string[]>();
  let nextOrder = 0;
  const placed: { position: number; record: WorkloadRecord }[] = [];
  const balances = new Map<string, number>();
  const orderTotals = new Map<string, number>();
  const validEventIds = new Set<string>();
  let poisonCount = 0;
  let producerDuplicates = 0;

  for (let index = 0; index < options.events; index++) {
    const accountId = `acct-${randomInt(random, options.accounts)}`;
    const eventId = `evt-${options.seed}-${index}`;
    if (random() < options.poisonRate) {
      const kind = poisonKinds[poisonCount % poisonKinds.length] ?? 'bad-json';
      poisonCount++;
      placed.push({ position: index, record: poisonRecord(options.topic, kind, eventId, accountId, encode) });
      continue;
    }
    const orderId = chooseOrder(random, ordersByAccount, accountId, () => `ord-${nextOrder++}`);
    const amount = 100 + randomInt(random, 49_901);
    const value = encode({
      event_id: eventId,
      type: 'OrderPlaced',
      order_id: orderId,
      account_id: accountId,
      amount,
    });
    const record: WorkloadRecord = {
      topic: options.topic,
      key: Buffer.from(accountId),
      value,
      headers: [{ key: 'event_id', value: Buffer.from(eventId) }],
    };
    placed.push({ position: index, record });
    validEventIds.add(eventId);
    add(balances, `account#${accountId}`, -amount);
    add(orderTotals, `order#${orderId}`, amount);
    if (random() < options.duplicateRate) {
      producerDuplicates++;
      // Half a slot keeps it after the original even at the same integer position.
      const position = index + 0.5 + randomInt(random, DUPLICATE_SPREAD);
      placed.push({ position, record: { ...record, producerDuplicate: true } });
    }
  }
  placed.sort((a, b) => a.position - b.position);
  return {
    records: placed.map((entry) => entry.record),
    expected: { balances, orderTotals, validEventIds },
    poisonCount,
    producerDuplicates,
  };
}

/** Three in ten events add to an earlier order of the same account; the rest open a new order. */
function chooseOrder(
  random: Random,
  ordersByAccount: Map<string, string[]>,
  accountId: string,
  newOrderId: () => string,
): string {
  const orders = ordersByAccount.get(accountId) ?? [];
  if (orders.length > 0 && random() < 0.3) return orders[randomInt(random, orders.length)] ?? newOrderId();
  const orderId = newOrderId();
  orders.push(orderId);
  ordersByAccount.set(accountId, orders);
  return orderId;
}

function encodeJson(order: AvroOrder): Buffer {
  // A JSON producer leaves a missing id out rather than writing null.
  const { event_id, ...rest } = order;
  return Buffer.from(JSON.stringify(event_id === null ? rest : order));
}

function poisonRecord(
  topic: string,
  kind: PoisonKind,
  eventId: string,
  accountId: string,
  encode: (order: AvroOrder) => Buffer,
): WorkloadRecord {
  const key = Buffer.from(accountId);
  const header = [{ key: 'event_id', value: Buffer.from(eventId) }];
  switch (kind) {
    case 'bad-json':
      // Truncated JSON, with an event_id header: quarantined, not retried.
      return {
        topic,
        key,
        value: Buffer.from(`{"event_id":"${eventId}","type":"OrderPlaced","order_`),
        headers: header,
        poison: kind,
      };
    case 'undecodable':
      // Bytes no registry's serializer wrote (no magic byte), with an event_id header.
      return { topic, key, value: Buffer.from(`garbage-${eventId}`), headers: header, poison: kind };
    case 'missing-event-id':
      return {
        topic,
        key,
        value: encode({
          event_id: null,
          type: 'OrderPlaced',
          order_id: 'ord-x',
          account_id: accountId,
          amount: 100,
        }),
        poison: kind,
      };
    case 'invalid-amount':
      return {
        topic,
        key,
        value: encode({
          event_id: eventId,
          type: 'OrderPlaced',
          order_id: 'ord-x',
          account_id: accountId,
          amount: -5,
        }),
        headers: header,
        poison: kind,
      };
  }
}

function add(map: Map<string, number>, key: string, amount: number): void {
  map.set(key, (map.get(key) ?? 0) + amount);
}
