import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ensureDynamoDbLocalJar } from './jar.js';

export interface DynamoDbLocal {
  /** e.g. http://127.0.0.1:41234, for AWS_ENDPOINT_URL_DYNAMODB. */
  readonly endpoint: string;
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

export interface StartDynamoDbLocalOptions {
  /** @default a free loopback port */
  readonly port?: number;
  /** @default the cached jar folder (fetched when missing) */
  readonly jarDirectory?: string;
  /** @default 30000 */
  readonly startTimeoutMs?: number;
}

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

/** Starts DynamoDB Local in memory on loopback, with telemetry off; resolves once it accepts requests. */
export async function startDynamoDbLocal(options: StartDynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const jarDirectory = await ensureDynamoDbLocalJar(options.jarDirectory);
  const port = options.port ?? (await freePort());
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${join(jarDirectory, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(jarDirectory, 'DynamoDBLocal.jar'),
      '-inMemory',
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    // Without DDB_LOCAL_TELEMETRY=0 it attempts a DNS lookup at start (docs/toolchain.md#dynamodb-local).
    { env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(child, endpoint, options.startTimeoutMs ?? 30_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  if (child.pid === undefined) throw new Error('DynamoDB Local did not start: no pid');
  return { endpoint, port, pid: child.pid, stop: () => stopProcess(child) };
}

async function waitUntilReady(child: ChildProcess, endpoint: string, timeoutMs: number): Promise<void> {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`DynamoDB Local exited with code ${child.exitCode}: ${output.slice(-2000)}`);
    }
    if (await answers(endpoint)) {
      // Keep draining its output so a full pipe never blocks the JVM.
      child.stdout?.resume();
      child.stderr?.resume();
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `DynamoDB Local did not answer on ${endpoint} within ${timeoutMs} ms: ${output.slice(-2000)}`,
  );
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    // Any HTTP answer (even 400 for a bare GET) means the server is listening.
    await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
