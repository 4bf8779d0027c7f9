import { afterAll, describe, expect, it } from 'vitest';
import type { ProducedRecord } from '../../../local/esm/record-source.js';
import { type KafkaMockCluster, startKafkaMockCluster } from '../../../local/kafka/broker.js';
import {
  createKafkaWorkloadSource,
  type KafkaWorkloadSource,
} from '../../../local/kafka/kafka-workload-source.js';
import { skipBrokerTests } from '../../support/broker.js';
import { isAlive } from '../../support/processes.js';

const workloads: KafkaWorkloadSource[] = [];
const clusters: KafkaMockCluster[] = [];

afterAll(async () => {
  await Promise.allSettled(workloads.map((workload) => workload.stop()));
  await Promise.allSettled(clusters.map((cluster) => cluster.stop()));
});

function orders(topic: string, count: number): ProducedRecord[] {
  return Array.from({ length: count }, (_, index) => ({
    topic,
    key: Buffer.from(`acct-${index % 7}`),
    value: Buffer.from(JSON.stringify({ event_id: `evt-${index}` })),
    headers: [{ key: 'event_id', value: Buffer.from(`evt-${index}`) }],
  }));
}

describe.skipIf(skipBrokerTests)('createKafkaWorkloadSource', () => {
  it('starts a local cluster, writes the workload and names the source by its broker when no brokers are given', async () => {
    const workload = await createKafkaWorkloadSource({ topic: 'orders', records: orders('orders', 50) });
    workloads.push(workload);

    expect(workload.description).toMatch(/^kafka \(127\.0\.0\.1:\d+\)$/);
    expect(workload.bootstrapServers).toBe(workload.cluster?.bootstrapServers);
    expect(workload.produced).toHaveLength(50);
    const progress = await workload.source.progress();
    expect(progress.map((p) => p.partition)).toEqual([0, 1, 2, 3]);
    expect(progress.reduce((sum, p) => sum + p.endOffset, 0)).toBe(50);
    expect(progress.every((p) => p.committedOffset === 0)).toBe(true);
    for (const { partition, offset } of workload.produced) {
      expect(offset).toBeLessThan(progress[partition]?.endOffset ?? 0);
    }
  });

  it('stops the cluster it started and leaves a given cluster running when stopped', async () => {
    const own = await createKafkaWorkloadSource({ topic: 'orders' });
    const existing = await startKafkaMockCluster({ brokers: 1 });
    clusters.push(existing);
    const onExisting = await createKafkaWorkloadSource({ brokers: existing.brokers, topic: 'orders' });

    await own.stop();
    await onExisting.stop();

    expect(own.cluster && isAlive(own.cluster.pid)).toBe(false);
    expect(onExisting.cluster).toBeUndefined();
    expect(onExisting.description).toBe(`kafka (${existing.brokers[0]})`);
    expect(isAlive(existing.pid)).toBe(true);
  });
});
