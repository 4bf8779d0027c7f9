import { createServer } from 'node:net';
import { join } from 'node:path';
import { spawnGuarded } from '../process/guarded-spawn.js';
import { PortInUseError } from '../process/port-in-use-error.js';
import { waitUntilReady } from '../process/wait-until-ready.js';
import { ensureDynamoDbLocalJar } from './jar.js';
import { assertJavaRuntime } from './java-runtime.js';

export interface DynamoDbLocal {
  /** e.g. http://127.0.0.1:41234, for AWS_ENDPOINT_URL_DYNAMODB. */
  readonly endpoint: string;
  readonly port: number;
  /** The JVM's pid. */
  readonly pid: number;
  stop(): Promise<void>;
}

export { PortInUseError } from '../process/port-in-use-error.js';

/** A system property that names, in `ps` output, the process that started this DynamoDB Local. */
export const OWNER_PROPERTY = 'msk.inbox.owner';

export interface StartDynamoDbLocalOptions {
  /** @default a free loopback port */
  readonly port?: number;
  /** @default the cached jar folder (fetched when missing) */
  readonly jarDirectory?: string;
  /** @default 30000 */
  readonly startTimeoutMs?: number;
  /** Options for the JVM, before `-jar` (e.g. QUICK_START_JVM_OPTIONS). @default none: the JVM's defaults */
  readonly jvmOptions?: readonly string[];
}

/**
 * JVM options for a short run on a small machine: the C1 compiler only (C2's compilations cost more CPU than
 * a run of a minute or less wins back; `npm start` measured about half the JVM's CPU time and a faster start
 * on 2 cores) and the serial collector (no concurrent GC threads competing for the cores).
 * docs/toolchain.md#dynamodb-local
 */
export const QUICK_START_JVM_OPTIONS: readonly string[] = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/** Asks the kernel for a free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolvePort(address.port);
        else reject(new Error('no port assigned'));
      });
    });
  });
}

/**
 * Starts DynamoDB Local in memory on loopback, with telemetry off; resolves once it accepts requests.
 * The JVM ends with this process, however this process ends (local/process/exit-with-parent.mjs).
 */
export async function startDynamoDbLocal(options: StartDynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  assertJavaRuntime();
  const jarDirectory = await ensureDynamoDbLocalJar(options.jarDirectory);
  if (options.port !== undefined) return startOnPort(jarDirectory, options.port, options);
  // A free port can be taken between the kernel's answer and the JVM's bind: then another one.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnPort(jarDirectory, await freePort(), options);
    } catch (error) {
      if (!(error instanceof PortInUseError) || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

/** Free ports tried before giving up. */
const PORT_ATTEMPTS = 3;

async function startOnPort(
  jarDirectory: string,
  port: number,
  options: StartDynamoDbLocalOptions,
): Promise<DynamoDbLocal> {
  const jvm = await spawnGuarded(
    'java',
    [
      ...(options.jvmOptions ?? []),
      `-D${OWNER_PROPERTY}=${process.pid}`,
      ...dynamoDbLocalArguments(jarDirectory, port),
    ],
    { env: dynamoDbLocalEnvironment() },
  );
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(jvm, {
      name: 'DynamoDB Local',
      port,
      answers: () => answers(endpoint),
      portInUse: /BindException|Address already in use/,
      timeoutMs: options.startTimeoutMs ?? 30_000,
      intervalMs: 100,
    });
  } catch (error) {
    await jvm.stop();
    throw error;
  }
  return { endpoint, port, pid: jvm.pid, stop: () => jvm.stop() };
}

/**
 * DynamoDB Local's own arguments, after the JVM's: in memory, telemetry off, on `port`. `sharedDb`: one
 * database for every access key and region, instead of one per pair.
 */
export function dynamoDbLocalArguments(jarDirectory: string, port: number, sharedDb = false): string[] {
  return [
    `-Djava.library.path=${join(jarDirectory, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(jarDirectory, 'DynamoDBLocal.jar'),
    '-inMemory',
    ...(sharedDb ? ['-sharedDb'] : []),
    '-disableTelemetry',
    '-port',
    String(port),
  ];
}

/** Without DDB_LOCAL_TELEMETRY=0 it attempts a DNS lookup at start (docs/toolchain.md#dynamodb-local). */
export function dynamoDbLocalEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env, DDB_LOCAL_TELEMETRY: '0' };
}

/** Whether anything answers HTTP at this endpoint. */
export async function answers(endpoint: string): Promise<boolean> {
  try {
    // Any HTTP answer (even 400 for a bare GET) means the server is listening.
    await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}
