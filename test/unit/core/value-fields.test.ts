/**
 * The cold start's check of the settings that name a field of the value (DEDUP_FIELD, KEY_SOURCE=field:)
 * against the value format's schema (value-format.ts#valueFieldProblems): protobufjs renames snake_case
 * fields to camelCase unless the .proto is parsed with keepCase, and a DEDUP_FIELD the decoded value
 * never has would quarantine every record without the header as missing-event-id.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { avroValues } from '../../../lambdas/avro/avro-values.js';
import { createInboxConsumer } from '../../../lambdas/core/create-inbox-consumer.js';
import { ConfigError } from '../../../lambdas/core/errors.js';
import type { HandlerSettings } from '../../../lambdas/core/settings.js';
import type { ValueFormat } from '../../../lambdas/core/value-format.js';
import { protobufValues } from '../../../lambdas/protobuf/protobuf-values.js';
import { ORDER_PROTO, orderProtobufType } from '../../support/order-protobuf.js';

const TYPE_NAME = 'msk_inbox.orders.OrderPlaced';
/** The order type as protobufjs parses it by default: `eventId`, `orderId`, `accountId`. */
const camelCaseType = protobuf.parse(ORDER_PROTO).root.lookupType(TYPE_NAME);
/** A message without an id field: its producers put the id in the header only. */
const headerOnlyType = protobuf
  .parse('syntax = "proto3"; message Ping { string note = 1; }', { keepCase: true })
  .root.lookupType('Ping');

/** The ConfigError's problems at cold start, or [] when the consumer is built. */
function coldStart(valueFormat: ValueFormat, settings: Partial<HandlerSettings> = {}): readonly string[] {
  try {
    createInboxConsumer({
      valueFormat,
      settings: { inboxTableName: 'inbox', consumerName: 'orders', ...settings },
      dynamoDb: new DynamoDBClient({ region: 'eu-west-1' }),
      effect: () => ({ kind: 'transact', writes: [] }),
    });
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
}

describe('a Protobuf type and the settings that name its fields', () => {
  it('fails at cold start when protobufjs renamed the default DEDUP_FIELD, naming keepCase as the fix', () => {
    expect(coldStart(protobufValues({ messageType: camelCaseType }))).toEqual([
      'DEDUP_FIELD "event_id": the Protobuf value has no such top-level field (it has "eventId"); ' +
        'protobufjs renames snake_case fields to camelCase unless the .proto is parsed with { keepCase: true }',
    ]);
  });

  it('takes the type parsed with keepCase, or a DEDUP_FIELD naming the field as decoded', () => {
    expect(coldStart(protobufValues({ messageType: orderProtobufType }))).toEqual([]);
    expect(coldStart(protobufValues({ messageType: camelCaseType }), { dedupField: 'eventId' })).toEqual([]);
  });

  it('leaves the default DEDUP_FIELD alone on a type with nothing like it: the id may be in the header only', () => {
    expect(coldStart(protobufValues({ messageType: headerOnlyType }))).toEqual([]);
  });

  it('fails on a DEDUP_FIELD set to a field the type lacks, and on a KEY_SOURCE field it lacks', () => {
    const problems = coldStart(protobufValues({ messageType: headerOnlyType }), {
      dedupField: 'event_id',
      ordering: 'key',
      keySource: 'field:account_id',
    });
    expect(problems).toEqual([
      expect.stringMatching(/^DEDUP_FIELD "event_id": the Protobuf value has no such top-level field; /),
      expect.stringMatching(
        /^KEY_SOURCE field "account_id": the Protobuf value has no such top-level field; /,
      ),
    ]);
  });

  it('checks nothing for a generated class, whose fields it cannot see', () => {
    const generated = { decode: camelCaseType.decode.bind(camelCaseType), toObject: camelCaseType.toObject };
    expect(coldStart(protobufValues({ messageType: generated }))).toEqual([]);
  });
});

describe('an Avro record and the settings that name its fields', () => {
  const schema = JSON.stringify({ type: 'record', name: 'Ping', fields: [{ name: 'note', type: 'string' }] });

  it('fails on a DEDUP_FIELD set to a field the record lacks, and takes the default one', () => {
    expect(coldStart(avroValues({ schema }), { dedupField: 'id' })).toEqual([
      'DEDUP_FIELD "id": the Avro value has no such top-level field',
    ]);
    expect(coldStart(avroValues({ schema }))).toEqual([]);
    expect(coldStart(avroValues({ schema }), { dedupField: 'note' })).toEqual([]);
  });
});
