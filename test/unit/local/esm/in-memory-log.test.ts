import { describe, expect, it } from 'vitest';
import { InMemoryLog } from '../../../../local/esm/in-memory-log.js';
import { murmur2, partitionForKey } from '../../../../local/esm/kafka-partitioner.js';

describe('InMemoryLog', () => {
  it('puts records with the same key on the same partition when no partition is given', async () => {
    const log = new InMemoryLog({ topics: { orders: 4 } });
    const written = await log.produce(
      ['a', 'b', 'a', 'c', 'a'].map((key) => ({ topic: 'orders', key: Buffer.from(key), value: null })),
    );
    const partitionsOfA = written.filter((_, index) => [0, 2, 4].includes(index)).map((w) => w.partition);
    expect(new Set(partitionsOfA).size).toBe(1);
  });

  it('hands out records from the fetch position and goes back when sought', async () => {
    const log = new InMemoryLog({ topics: { orders: 1 } });
    await log.produce(
      [1, 2, 3, 4].map((n) => ({ topic: 'orders', partition: 0, key: null, value: Buffer.from(`${n}`) })),
    );
    const consumer = log.consumer('g');
    await consumer.start();
    const tp = { topic: 'orders', partition: 0 };
    expect((await consumer.poll(tp, { maxRecords: 3 })).map((r) => r.offset)).toEqual([0, 1, 2]);
    expect((await consumer.poll(tp, { maxRecords: 3 })).map((r) => r.offset)).toEqual([3]);
    await consumer.seek(tp, 1);
    expect((await consumer.poll(tp, { maxRecords: 2 })).map((r) => r.offset)).toEqual([1, 2]);
    await consumer.commit(tp, 2);
    expect(await consumer.progress()).toEqual([{ ...tp, committedOffset: 2, endOffset: 4 }]);
  });

  it('keeps the fetch positions when started a second time, as a source started early and again by the mapping', async () => {
    const log = new InMemoryLog({ topics: { orders: 1 } });
    await log.produce(
      [1, 2, 3].map((n) => ({ topic: 'orders', partition: 0, key: null, value: Buffer.from(`${n}`) })),
    );
    const consumer = log.consumer('g');
    await consumer.start();
    const tp = { topic: 'orders', partition: 0 };
    expect((await consumer.poll(tp, { maxRecords: 2 })).map((r) => r.offset)).toEqual([0, 1]);
    await consumer.start();
    expect((await consumer.poll(tp, { maxRecords: 2 })).map((r) => r.offset)).toEqual([2]);
  });

  it('takes records on a topic created after it was made, as a broker that auto-creates topics', async () => {
    const log = new InMemoryLog({ topics: { orders: 1 } });
    expect(log.partitionCount('payments')).toBeUndefined();

    log.createTopic('payments', 2);

    expect(log.topicNames()).toEqual(['orders', 'payments']);
    expect(log.partitionCount('payments')).toBe(2);
    expect(await log.produce([{ topic: 'payments', partition: 1, key: null, value: null }])).toEqual([
      { topic: 'payments', partition: 1, offset: 0 },
    ]);
    expect(() => log.createTopic('payments', 3)).toThrow(/exists/);
  });

  it('rejects a commit beyond the log end', async () => {
    const log = new InMemoryLog({ topics: { orders: 1 } });
    const consumer = log.consumer('g');
    await consumer.start();
    await expect(consumer.commit({ topic: 'orders', partition: 0 }, 1)).rejects.toThrow(/outside the log/);
  });
});

describe('partitionForKey', () => {
  it('matches the Java client murmur2 when given known keys', () => {
    // Values from Kafka's UtilsTest.testMurmur2.
    expect(murmur2(Buffer.from('21'))).toBe(-973932308);
    expect(murmur2(Buffer.from('foobar'))).toBe(-790332482);
    expect(murmur2(Buffer.from('a-little-bit-long-string'))).toBe(-985981536);
    expect(murmur2(Buffer.from('a-little-bit-longer-string'))).toBe(-1486304829);
    expect(partitionForKey(Buffer.from('foobar'), 4)).toBe((-790332482 & 0x7fffffff) % 4);
  });
});
