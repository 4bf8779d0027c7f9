/**
 * The OrderPlaced event in Avro, in one place: the schema, the schema id the demo's producer frames it
 * with (Confluent's wire format: local/schema-registry/wire-frames.ts), the encoder and the consumer's
 * value format. The Avro schema mirrors the JSON event (README "Event value"); `event_id` may be null so a
 * producer can leave it out, as a JSON producer can omit the field. The sample's schema
 * (sample/order-consumer/order-placed.ts) validates what it decodes, as it does JSON.
 */
import avro from 'avsc';
import { avroValues } from '../../lambdas/avro/avro-values.js';
import type { ValueFormat } from '../../lambdas/core/value-format.js';
import { confluentFrame } from '../schema-registry/wire-frames.js';

/**
 * How the demo's producer writes order values and its function reads them (`--format`, `VALUE_FORMAT`):
 * JSON text, or Confluent-framed Avro of the schema below.
 */
export const ORDER_VALUE_FORMATS = ['json', 'avro'] as const;
export type OrderValueFormat = (typeof ORDER_VALUE_FORMATS)[number];

export const ORDER_AVRO_SCHEMA = {
  type: 'record',
  name: 'OrderPlaced',
  namespace: 'msk_inbox.orders',
  fields: [
    { name: 'event_id', type: ['null', 'string'], default: null },
    { name: 'type', type: 'string' },
    { name: 'order_id', type: 'string' },
    { name: 'account_id', type: 'string' },
    // Cents; a long, as a ledger's amounts are: decoded as a number while safe (value-format.ts).
    { name: 'amount', type: 'long' },
  ],
} as const satisfies avro.Schema;

/** The id a Confluent registry would have given the schema: what the demo's frames carry. */
export const ORDER_AVRO_SCHEMA_ID = 1;

export interface AvroOrder {
  readonly event_id: string | null;
  readonly type: string;
  readonly order_id: string;
  readonly account_id: string;
  readonly amount: number;
}

const orderType = avro.Type.forSchema(ORDER_AVRO_SCHEMA as unknown as avro.Schema);

/** An order as a Confluent-framed Avro value, as a producer with the registry's serializer writes it. */
export function encodeAvroOrder(order: AvroOrder): Buffer {
  return confluentFrame(ORDER_AVRO_SCHEMA_ID, orderType.toBuffer(order));
}

/** The consumer's side: Avro of this schema, under a schema registry's header. */
export function orderAvroValues(): ValueFormat {
  return avroValues({ schema: ORDER_AVRO_SCHEMA as unknown as avro.Schema });
}
