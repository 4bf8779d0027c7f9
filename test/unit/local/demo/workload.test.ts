import { describe, expect, it } from 'vitest';
import { generateWorkload } from '../../../../local/demo/workload.js';
import { orderAvroValues } from '../../../../local/orders/order-avro.js';

const options = {
  topic: 'orders',
  events: 2_000,
  accounts: 50,
  duplicateRate: 0.1,
  poisonRate: 0.02,
  seed: 5,
};

describe('generateWorkload', () => {
  it('sends producer duplicates with the same bytes and event_id after their original when some are drawn', () => {
    const workload = generateWorkload(options);
    expect(workload.producerDuplicates).toBeGreaterThan(0);
    expect(workload.records).toHaveLength(options.events + workload.producerDuplicates);
    workload.records.forEach((record, index) => {
      if (!record.producerDuplicate) return;
      const original = workload.records.findIndex(
        (r) => !r.producerDuplicate && r.value?.equals(record.value ?? Buffer.alloc(0)),
      );
      expect(original).toBeGreaterThanOrEqual(0);
      expect(original).toBeLessThan(index);
    });
  });

  it('expects each unique valid event applied once when computing balances and totals', () => {
    const workload = generateWorkload(options);
    const unique = new Map<string, { account_id: string; order_id: string; amount: number }>();
    for (const record of workload.records) {
      if (record.poison) continue;
      const event = JSON.parse(record.value?.toString() ?? '{}');
      unique.set(event.event_id, event);
    }
    expect(workload.expected.validEventIds).toEqual(new Set(unique.keys()));
    const debits = [...unique.values()].reduce((sum, e) => sum + e.amount, 0);
    expect([...workload.expected.balances.values()].reduce((a, b) => a + b, 0)).toBe(-debits);
    expect([...workload.expected.orderTotals.values()].reduce((a, b) => a + b, 0)).toBe(debits);
  });

  it('mixes the three kinds of poison when the poison rate is above zero', () => {
    const kinds = new Set(
      generateWorkload(options)
        .records.map((record) => record.poison)
        .filter(Boolean),
    );
    expect(kinds).toEqual(new Set(['bad-json', 'missing-event-id', 'invalid-amount']));
  });

  it('produces the same records when given the same seed', () => {
    const values = (seed: number) =>
      generateWorkload({ ...options, seed }).records.map((r) => r.value?.toString());
    expect(values(5)).toEqual(values(5));
    expect(values(5)).not.toEqual(values(6));
  });

  it('with Avro, frames every valid value for the registry and makes one poison kind garbage bytes', () => {
    const workload = generateWorkload({ ...options, valueFormat: 'avro' });
    const format = orderAvroValues();
    const kinds = new Set(workload.records.map((record) => record.poison).filter(Boolean));
    expect(kinds).toEqual(new Set(['undecodable', 'missing-event-id', 'invalid-amount']));
    for (const record of workload.records) {
      const parsed = format.parse(record.value, undefined);
      // Garbage bytes are the one kind the consumer cannot decode; the rest decode, valid or not.
      expect(parsed.ok).toBe(record.poison !== 'undecodable');
      if (parsed.ok && !record.poison) expect(parsed.value).toMatchObject({ type: 'OrderPlaced' });
    }
    const json = generateWorkload(options);
    expect(workload.expected).toEqual(json.expected);
  });
});
