/**
 * An order message in Protobuf for the value-format tests: the .proto text, its type (protobufjs, as a
 * consumer gives it in code) and an encoder for the bare message.
 */
import protobuf from 'protobufjs';

export const ORDER_PROTO = `
syntax = "proto3";
package msk_inbox.orders;
message OrderPlaced {
  string event_id = 1;
  string type = 2;
  string order_id = 3;
  string account_id = 4;
  int64 amount = 5;
}
`;

// keepCase: the fields keep the .proto's names (the JSON event's), not protobufjs's default camelCase.
export const orderProtobufType = protobuf
  .parse(ORDER_PROTO, { keepCase: true })
  .root.lookupType('msk_inbox.orders.OrderPlaced');

export interface ProtobufOrder {
  readonly event_id?: string;
  readonly type?: string;
  readonly order_id?: string;
  readonly account_id?: string;
  readonly amount?: number | bigint;
}

/** The bare message bytes (frame them with local/schema-registry/wire-frames.ts). */
export function encodeProtobufOrder(order: ProtobufOrder): Uint8Array {
  // protobufjs writes an int64 given as decimal text exactly (a number past 2^53 would be rounded).
  const amount = typeof order.amount === 'bigint' ? order.amount.toString() : order.amount;
  return orderProtobufType.encode(orderProtobufType.create({ ...order, amount })).finish();
}
