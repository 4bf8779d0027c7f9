/**
 * Payload bytes never reach the logs: a run over poison records that each carry a marker in their
 * content (value, key, header names and bytes, odd field types), with each logger at its most verbose, writes log
 * lines for every record and none of them holds the marker, in any encoding.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KafkaEventRecord } from '../../../lambdas/core/kafka-event.js';
import { type ConsumerLogger, JsonLogger } from '../../../lambdas/core/telemetry/json-logger.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaRecord, signedBytes } from '../../support/kafka-events.js';
import { CONSUMER, orderConsumer } from '../../support/order-consumer.js';

/** Letters no log line has otherwise; a parser that quotes even the first few of them is caught. */
const MARKER = 'ZQXJKW4111111111111111';
const base64 = (text: string) => Buffer.from(text).toString('base64');

let tables: TestTables;

beforeAll(async () => {
  tables = await createTestTables();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every way a piece of the marker could show up in a log line (V8 quotes the first 10 characters). */
const ENCODINGS = ['ZQXJ', base64(MARKER).slice(0, 8), JSON.stringify(signedBytes(MARKER)).slice(1, 12)];

function poisonRecords(): KafkaEventRecord[] {
  const order = (fields: Record<string, unknown>) =>
    JSON.stringify({
      event_id: 'evt-1',
      type: 'OrderPlaced',
      order_id: 'o',
      account_id: 'a',
      amount: 5,
      ...fields,
    });
  const at = (offset: number, overrides: Record<string, unknown>, eventId = `evt-${offset}`) =>
    ({ ...kafkaRecord({ offset, headers: { event_id: eventId } }), ...overrides }) as KafkaEventRecord;
  return [
    at(1, { value: base64(`{"card": ${MARKER}}`) }), // not JSON: the parser's message quotes it
    at(2, { value: base64(`{"card": "${MARKER}"`) }), // JSON that ends early
    at(3, { value: base64(order({ amount: MARKER })) }), // fails validation
    at(4, { value: base64(order({ order_id: MARKER.repeat(200) })) }), // a key DynamoDB refuses
    at(5, { value: base64(order({ event_id: 'other' })) }), // id differs from the header
    at(6, { key: `${MARKER}!`, value: base64(order({})) }), // a key that is not base64
    at(7, { headers: [{ [MARKER]: [999] }] }), // a header that is not bytes
    at(8, { value: 12_345, key: MARKER.length }), // fields of the wrong type
    at(9, { timestampType: MARKER, offset: MARKER }), // no usable offset
    at(10, { value: Buffer.from([0xff, ...Buffer.from(MARKER)]).toString('base64') }), // not UTF-8
    at(11, { value: base64(order({ event_id: 'evt-11', note: MARKER })) }, 'evt-11'), // a valid order
    at(12, { value: base64(order({ event_id: 'evt-11', note: `${MARKER}2` })) }, 'evt-11'), // conflict
  ];
}

describe('the logs of a run over poison records', () => {
  // The default logger (lambdas/core/telemetry), and a team's Powertools Logger at its most verbose.
  const loggers: [string, () => ConsumerLogger][] = [
    [
      'the default logger',
      () => new JsonLogger({ serviceName: CONSUMER, env: { POWERTOOLS_LOG_LEVEL: 'INFO' } }),
    ],
    ['a Powertools Logger', () => new Logger({ serviceName: CONSUMER, logLevel: 'DEBUG' })],
  ];
  it.each(loggers)(
    'hold none of the records bytes, although every record is logged or counted, with %s',
    async (_, logger) => {
      const lines: string[] = [];
      const capture = (chunk: unknown) => {
        lines.push(String(chunk));
        return true;
      };
      vi.spyOn(process.stdout, 'write').mockImplementation(capture);
      vi.spyOn(process.stderr, 'write').mockImplementation(capture);
      const consumer = orderConsumer(tables, { logger: logger() });
      const event = {
        eventSource: 'aws:kafka',
        records: { 'orders-0': poisonRecords(), 'orders-1': ['not a record', MARKER] },
      };

      const response = await consumer.invoke(event);
      await consumer.invoke(event); // the redelivery logs its outcomes again
      vi.restoreAllMocks();

      expect(response.batchItemFailures).toEqual([]);
      const quarantineLines = lines.filter((line) => line.includes('record quarantined'));
      expect(quarantineLines.length).toBeGreaterThanOrEqual(12);
      for (const encoding of ENCODINGS) {
        expect(lines.filter((line) => line.includes(encoding))).toEqual([]);
      }
    },
  );
});
