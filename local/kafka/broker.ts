import { type ChildProcess, spawn } from 'node:child_process';
import { findOnPath } from '../process/find-on-path.js';
import { stopChild } from '../process/stop-child.js';
import { KafkaMockClusterStartError, KcatNotInstalledError } from './errors.js';

/** Whether kcat, the local broker's host program, is on the PATH. */
export function isKcatInstalled(): boolean {
  return findOnPath('kcat') !== undefined;
}

/** librdkafka's mock cluster auto-creates every topic with this many partitions; no other count can be made. */
export const MOCK_CLUSTER_PARTITIONS_PER_TOPIC = 4;

export interface KafkaMockCluster {
  /** `host:port,host:port`, as Lambda puts it in the event's `bootstrapServers`. */
  readonly bootstrapServers: string;
  readonly brokers: readonly string[];
  readonly pid: number;
  /** Ends the cluster; its topics and committed offsets are gone with it. */
  stop(): Promise<void>;
}

export interface StartKafkaMockClusterOptions {
  /** @default 3 */
  readonly brokers?: number;
  /** @default 10000 */
  readonly startTimeoutMs?: number;
}

/** What the mock prints once its brokers listen (librdkafka 2.0.2, Debian's kcat 1.7.1). */
const BOOTSTRAP_LINE = /Mock cluster enabled: .*replaced with (\S+)/;

/**
 * Starts librdkafka's mock cluster, a Kafka-protocol broker, hosted by kcat (docs/toolchain.md#kafka-mock-cluster), on loopback ports
 * the mock picks, and resolves with its bootstrap list once it listens.
 *
 * kcat runs as a producer reading our stdin pipe: when this process ends, even by SIGKILL, the pipe closes,
 * kcat reads end-of-file and exits, so a crashed test run never leaves a broker behind.
 * Limits: 4 partitions per auto-created topic, no admin API (CreateTopics, DescribeGroups, ListGroups),
 * no idempotent or transactional producer, and the first join of a group waits about 3 s.
 */
export async function startKafkaMockCluster(
  options: StartKafkaMockClusterOptions = {},
): Promise<KafkaMockCluster> {
  const brokerCount = options.brokers ?? 3;
  if (!Number.isInteger(brokerCount) || brokerCount < 1) {
    throw new KafkaMockClusterStartError(`brokers must be a positive integer, got ${brokerCount}`);
  }
  const child = spawn(
    'kcat',
    // The bootstrap address is ignored once the mock is enabled; -q keeps kcat itself quiet.
    ['-b', 'localhost:1', '-X', `test.mock.num.brokers=${brokerCount}`, '-P', '-t', '__keepalive', '-q'],
    { stdio: ['pipe', 'ignore', 'pipe'] },
  );
  let bootstrapServers: string;
  try {
    bootstrapServers = await readBootstrapServers(child, options.startTimeoutMs ?? 10_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  if (child.pid === undefined) throw new KafkaMockClusterStartError('kcat did not start: no pid');
  return {
    bootstrapServers,
    brokers: bootstrapServers.split(','),
    pid: child.pid,
    stop: () => stopCluster(child),
  };
}

function readBootstrapServers(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const fail = (error: Error) => {
      cleanUp();
      reject(error);
    };
    const onSpawnError = (error: NodeJS.ErrnoException) =>
      fail(
        error.code === 'ENOENT'
          ? new KcatNotInstalledError({ cause: error })
          : new KafkaMockClusterStartError(`kcat failed to start: ${error.message}`, { cause: error }),
      );
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(
        new KafkaMockClusterStartError(
          `kcat exited (${signal ?? `code ${code}`}) before the mock cluster listened: ${output.slice(-2000)}`,
        ),
      );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = BOOTSTRAP_LINE.exec(output);
      if (match?.[1]) {
        cleanUp();
        // Keep draining stderr so a full pipe never blocks the brokers.
        child.stderr?.resume();
        resolve(match[1]);
      }
    };
    const timer = setTimeout(
      () =>
        fail(
          new KafkaMockClusterStartError(
            `the mock cluster printed no bootstrap list within ${timeoutMs} ms: ${output.slice(-2000)}`,
          ),
        ),
      timeoutMs,
    );
    function cleanUp() {
      clearTimeout(timer);
      child.off('error', onSpawnError);
      child.off('exit', onExit);
      child.stderr?.off('data', onData);
    }
    child.on('error', onSpawnError);
    child.on('exit', onExit);
    child.stderr?.on('data', onData);
  });
}

function stopCluster(child: ChildProcess): Promise<void> {
  // kcat's producer sits in a blocking read of stdin and only notices SIGTERM once that read returns:
  // end-of-file is what makes it exit.
  return stopChild(child, { closeStdin: true });
}
