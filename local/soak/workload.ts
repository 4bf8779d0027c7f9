/**
 * A schedule's workload: the order events and hostile records it produces, their ids and values, and the
 * inbox rows an earlier run is pretended to have left. Ids are scoped by the run's consumer name, since
 * schedules share two tables.
 */
import { hashPayload } from '../../lambdas/core/decode-event.js';
import type { ProducedRecord } from '../esm/record-source.js';
import {
  DEDUP_TTL_SECONDS,
  EPOCH_MS,
  type EventSpec,
  type MalformedVariant,
  type RecordSpec,
  type Schedule,
  type SeededRow,
} from './schedule.js';
import type { SeededInboxRow } from './soak-store.js';

export class Workload {
  readonly schedule: Schedule;
  /** Scopes the inbox rows (CONSUMER_NAME) and prefixes the app table's keys. */
  readonly consumer: string;

  constructor(schedule: Schedule, consumer: string) {
    this.schedule = schedule;
    this.consumer = consumer;
  }

  orderValue(event: number, variant: 'original' | 'conflict'): Buffer {
    const spec = this.event(event);
    const amount = variant === 'conflict' ? (spec.conflictAmount ?? spec.amount) : spec.amount;
    return Buffer.from(
      JSON.stringify({
        event_id: this.eventId(event),
        type: 'OrderPlaced',
        order_id: this.orderId(event),
        account_id: this.accountId(spec.account),
        amount,
      }),
    );
  }

  eventId(event: number): string {
    return `evt-${event}`;
  }

  orderId(event: number): string {
    return `${this.consumer}.o${event}`;
  }

  accountId(account: number): string {
    return `${this.consumer}.a${account}`;
  }

  event(index: number): EventSpec {
    const event = this.schedule.events[index];
    if (!event) throw new Error(`schedule ${this.schedule.seed} has no event ${index}`);
    return event;
  }

  produced(spec: RecordSpec, index: number): ProducedRecord {
    const topic = this.schedule.topic;
    if (spec.kind === 'order') {
      const eventSpec = this.event(spec.event);
      const id = Buffer.from(this.eventId(spec.event));
      return {
        topic,
        partition: spec.partition,
        key: Buffer.from(this.orderId(spec.event)),
        value: this.orderValue(spec.event, spec.variant),
        headers: eventSpec.headerId ? [{ key: 'event_id', value: id }] : [],
      };
    }
    const badId = `bad-${index}`;
    const order = {
      type: 'OrderPlaced',
      order_id: `${this.consumer}.bad${index}`,
      account_id: 'x',
      amount: 5,
    };
    const json = (value: unknown) => Buffer.from(JSON.stringify(value));
    const header = (value: Buffer) => [{ key: 'event_id', value }];
    const malformed: Record<MalformedVariant, Pick<ProducedRecord, 'value' | 'headers'>> = {
      'not-json': {
        value: Buffer.from('{"event_id": "bad" this is not json'),
        headers: header(Buffer.from(badId)),
      },
      'no-event-id': { value: json(order), headers: [] },
      'non-utf8-event-id': { value: json(order), headers: header(Buffer.from([0xc3, 0x28, 0xff])) },
      'numeric-event-id': { value: json({ ...order, event_id: 42 }), headers: [] },
      'schema-invalid': {
        value: json({ ...order, event_id: badId, amount: -5 }),
        headers: header(Buffer.from(badId)),
      },
      tombstone: { value: null, headers: header(Buffer.from(badId)) },
      'other-type': {
        value: json({ event_id: badId, type: 'OrderCancelled' }),
        headers: header(Buffer.from(badId)),
      },
    };
    return { topic, partition: spec.partition, key: null, ...malformed[spec.variant] };
  }

  /** The inbox row an earlier run left for a seeded event, as the schedule describes it. */
  seededItem(row: SeededRow): SeededInboxRow {
    const nowSeconds = Math.floor(EPOCH_MS / 1000);
    const dedupKey = this.eventId(row.event);
    const sameHash = hashPayload(this.orderValue(row.event, 'original'));
    const expired = nowSeconds - row.expiredAgoSeconds;
    switch (row.kind) {
      case 'expired-completed-same-payload':
        return {
          dedupKey,
          status: 'COMPLETED',
          expires_at: expired,
          payload_hash: sameHash,
          source: 'old@1',
        };
      case 'expired-completed-other-payload':
        return { dedupKey, status: 'COMPLETED', expires_at: expired, payload_hash: 'other', source: 'old@2' };
      case 'expired-in-progress':
        return {
          dedupKey,
          status: 'IN_PROGRESS',
          expires_at: expired,
          payload_hash: sameHash,
          lease_owner: 'ghost',
          lease_until: EPOCH_MS - row.expiredAgoSeconds * 1000,
          source: 'old@3',
        };
      case 'live-lease':
        return {
          dedupKey,
          status: 'IN_PROGRESS',
          expires_at: nowSeconds + DEDUP_TTL_SECONDS,
          payload_hash: sameHash,
          lease_owner: 'ghost',
          lease_until: EPOCH_MS + row.leaseLeftMs,
          source: 'old@4',
        };
    }
  }
}
