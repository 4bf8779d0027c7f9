import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { type KafkaMockCluster, startKafkaMockCluster } from '../../../local/kafka/broker.js';
import { skipBrokerTests } from '../../support/broker.js';
import { isAlive } from '../../support/processes.js';

const started: KafkaMockCluster[] = [];
const strayPids: number[] = [];

afterAll(async () => {
  await Promise.allSettled(started.map((cluster) => cluster.stop()));
  for (const pid of strayPids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

describe.skipIf(skipBrokerTests)('startKafkaMockCluster', () => {
  it('listens on one loopback port per broker when started with 3 brokers', async () => {
    const cluster = await startKafkaMockCluster({ brokers: 3 });
    started.push(cluster);

    expect(cluster.brokers).toHaveLength(3);
    expect(cluster.bootstrapServers).toBe(cluster.brokers.join(','));
    for (const broker of cluster.brokers) {
      expect(broker).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(await accepts(broker)).toBe(true);
    }
  });

  it('ends the kcat process and closes its ports when stopped', async () => {
    const cluster = await startKafkaMockCluster({ brokers: 1 });
    started.push(cluster);

    await cluster.stop();

    expect(isAlive(cluster.pid)).toBe(false);
    expect(await accepts(cluster.bootstrapServers)).toBe(false);
  });

  it('ends with its owner when the owning process is killed with SIGKILL', async () => {
    const owner = spawn(process.execPath, ['--import', 'tsx', 'test/e2e/kafka/fixtures/cluster-owner.ts'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (owner.pid !== undefined) strayPids.push(owner.pid);
    const [line] = (await once(createInterface({ input: owner.stdout }), 'line')) as [string];
    const { kcatPid } = JSON.parse(line) as { kcatPid: number };
    strayPids.push(kcatPid);
    expect(isAlive(kcatPid)).toBe(true);

    owner.kill('SIGKILL');
    await once(owner, 'exit');

    await expect.poll(() => isAlive(kcatPid), { timeout: 5000 }).toBe(false);
  });
});

function accepts(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.connect(Number(port), host ?? '127.0.0.1');
  });
}
