import { createServer } from 'node:net';
import { join } from 'node:path';
import { UserError } from '../../operator/cli/user-error.js';
import { type GuardedProcess, spawnGuarded } from '../process/guarded-spawn.js';
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

/** The port is taken by another program (a port the caller chose, or one taken in a race). */
export class PortInUseError extends UserError {
  constructor(port: number) {
    super(`port ${port} is in use: stop the program holding it (lsof -i :${port}) or pick another port`);
    this.name = 'PortInUseError';
  }
}

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
    await waitUntilReady(jvm, endpoint, port, options.startTimeoutMs ?? 30_000);
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

async function waitUntilReady(
  jvm: GuardedProcess,
  endpoint: string,
  port: number,
  timeoutMs: number,
): Promise<void> {
  const { guard } = jvm;
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  guard.stdout.on('data', collect);
  guard.stderr.on('data', collect);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (/BindException|Address already in use/.test(output)) throw new PortInUseError(port);
    if (guard.exitCode !== null) {
      throw new Error(`DynamoDB Local exited with code ${guard.exitCode}: ${output.slice(-2000)}`);
    }
    if (await answers(endpoint)) {
      // Keep draining its output so a full pipe never blocks the JVM.
      guard.stdout.off('data', collect).resume();
      guard.stderr.off('data', collect).resume();
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `DynamoDB Local did not answer on ${endpoint} within ${timeoutMs} ms: ${output.slice(-2000)}`,
  );
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
