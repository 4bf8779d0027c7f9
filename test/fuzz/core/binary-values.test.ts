/**
 * Hostile bytes for the binary value formats (lambdas/avro/avro-values.ts, protobuf-values.ts): random
 * bytes, and valid Confluent and Glue headers over random, cut or corrupted bodies, through the engine's
 * handler on the in-memory inbox. A value never crashes the batch: it is quarantined (undecodable, or a
 * schema or id refusal when random bytes happen to decode), never reported for a retry that cannot help.
 * A value the format cannot decode is quarantined `undecodable` with the format's message, with or
 * without a dedup header (docs/design.md#value-formats): never as missing-event-id.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toEngineEffect } from '../../../lambdas/core/create-inbox-consumer.js';
import { DEFAULT_DEDUP_KEY_POLICY } from '../../../lambdas/core/dedup-key.js';
import { createKafkaBatchHandler } from '../../../lambdas/core/kafka-batch-handler.js';
import type { RecordOutcome } from '../../../lambdas/core/outcome.js';
import type { ValueFormat } from '../../../lambdas/core/value-format.js';
import { protobufValues } from '../../../lambdas/protobuf/protobuf-values.js';
import { encodeAvroOrder, orderAvroValues } from '../../../local/orders/order-avro.js';
import { confluentFrame, glueFrame } from '../../../local/schema-registry/wire-frames.js';
import { orderConsumer, skipOtherEventTypes } from '../../../sample/order-consumer/order-placed.js';
import { ManualClock } from '../../support/clocks.js';
import { kafkaEvent } from '../../support/kafka-events.js';
import { MemoryInboxStore } from '../../support/memory-inbox-store.js';
import { encodeProtobufOrder, orderProtobufType } from '../../support/order-protobuf.js';

const ORDER = {
  event_id: 'evt-1',
  type: 'OrderPlaced',
  order_id: 'ord-1',
  account_id: 'acct-1',
  amount: 100,
};
const UUID = '0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5';

function engine(valueFormat: ValueFormat) {
  const clock = new ManualClock();
  let observed: readonly RecordOutcome[] = [];
  const handle = createKafkaBatchHandler({
    store: new MemoryInboxStore(clock),
    effect: toEngineEffect(orderConsumer('app')),
    skipRecord: skipOtherEventTypes,
    dedupKeyPolicy: DEFAULT_DEDUP_KEY_POLICY,
    clock,
    deadlineMarginMs: 3_000,
    leaseMarginMs: 10_000,
    partitionConcurrency: 4,
    transactGroupMaxRecords: 100,
    valueFormat,
    telemetry: { batchProcessed: (_summary, outcomes) => (observed = outcomes) },
  });
  return {
    invoke: (event: unknown) => handle(event, { getRemainingTimeInMillis: () => 60_000 }),
    outcomes: () => observed,
  };
}

const bytes = fc.uint8Array({ maxLength: 64 });

/** A valid value broken one way: cut anywhere, one byte changed, or random bytes after its header. */
function hostile(valid: Buffer, header: number): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    bytes,
    fc.nat({ max: valid.length - 1 }).map((end) => valid.subarray(0, end)),
    fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 1, max: 255 })).map(([at, flip]) => {
      const copy = Buffer.from(valid);
      copy[at] = (copy[at] ?? 0) ^ flip;
      return copy;
    }),
    bytes.map((body) => Buffer.concat([valid.subarray(0, header), body])),
  );
}

const FORMATS = [
  {
    name: 'Avro',
    format: orderAvroValues(),
    values: fc.oneof(
      hostile(encodeAvroOrder(ORDER), 5),
      hostile(glueFrame(UUID, encodeAvroOrder(ORDER).subarray(5), { zlib: true }), 18),
    ),
  },
  {
    name: 'Protobuf',
    format: protobufValues({ messageType: orderProtobufType }),
    values: fc.oneof(
      hostile(confluentFrame(7, encodeProtobufOrder(ORDER), [1, 0]), 5),
      hostile(glueFrame(UUID, encodeProtobufOrder(ORDER), { messageIndex: 0 }), 18),
    ),
  },
] as const;

/** Outcomes a hostile value may end in: nothing reported, nothing failed. */
const FINAL = new Set(['quarantined', 'processed', 'duplicate', 'skipped']);

describe.each(FORMATS)('$name values under hostile bytes', ({ format, values }) => {
  it('never crashes the batch: every record ends acked, an undecodable one quarantined with the reason', async () => {
    const undecodable = { withHeader: 0, withoutHeader: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(values, fc.boolean()), { minLength: 1, maxLength: 12 }),
        async (records) => {
          const e = engine(format);
          const event = kafkaEvent(
            records.map(([value, withHeader], offset) => ({
              offset,
              key: 'acct-1',
              value: Buffer.from(value),
              ...(withHeader ? { headers: { event_id: `evt-h-${offset}` } } : {}),
            })),
          );
          const response = await e.invoke(event);

          expect(response.batchItemFailures).toEqual([]);
          const outcomes = e.outcomes();
          expect(outcomes).toHaveLength(records.length);
          for (const outcome of outcomes) {
            expect(FINAL.has(outcome.status)).toBe(true);
            const [value, withHeader] = records[outcome.offset ?? -1] as [Uint8Array, boolean];
            // The format's own verdict on the bytes, read apart from the engine.
            const parsed = format.parse(Buffer.from(value), undefined);
            if (parsed.ok) {
              expect(outcome.reason).not.toBe('undecodable');
              continue;
            }
            expect(outcome).toMatchObject({
              status: 'quarantined',
              reason: 'undecodable',
              detail: parsed.error,
            });
            undecodable[withHeader ? 'withHeader' : 'withoutHeader'] += 1;
            // The reason's detail names the failure, never the bytes (the ids in them never show).
            expect(outcome.detail).not.toMatch(/evt-|ord-|acct-/);
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(undecodable.withHeader).toBeGreaterThan(0);
    expect(undecodable.withoutHeader).toBeGreaterThan(0);
  }, 60_000);
});
