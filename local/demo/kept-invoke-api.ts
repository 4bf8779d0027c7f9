/**
 * `npm start -- --keep`: the demo's function stays invocable through Lambda's Invoke API on loopback
 * (local/lambda-runtime/invoke-api-server.ts), running the demo's bundle against the kept DynamoDB Local,
 * so `msk-inbox quarantine replay --function` can be tried on the demo's quarantine rows. Like the kept
 * JVM it is a detached process (local/lambda-runtime/invoke-api-main.ts) that runs until `kill <pid>`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { BuiltBundles } from '../lambda-runtime/build-bundles.js';
import type { KeptFunctionConfig } from '../lambda-runtime/invoke-api-main.js';
import { LOCAL_RUN_DIRECTORY, PROJECT_ROOT } from '../project-paths.js';

export interface KeptInvokeApi {
  readonly endpoint: string;
  readonly pid: number;
  readonly logPath: string;
  /** Ends it, for a run that failed: nothing is kept then. */
  stop(): void;
}

export interface KeptFunction {
  readonly functionName: string;
  /** The bundles the run built and ran (they stay in .local-run/ until the next run builds them again). */
  readonly bundles: BuiltBundles;
  readonly environment: Readonly<Record<string, string>>;
  readonly dynamoDbEndpoint: string;
  readonly timeoutMs: number;
}

const START_TIMEOUT_MS = 30_000;
const MAIN = join(PROJECT_ROOT, 'local', 'lambda-runtime', 'invoke-api-main.ts');

/** Starts the process; resolves once it listens. */
export async function startKeptInvokeApi(fn: KeptFunction): Promise<KeptInvokeApi> {
  const logPath = join(LOCAL_RUN_DIRECTORY, 'logs', `${fn.functionName}-invoke-api.log`);
  const { bundles, ...rest } = fn;
  const config: KeptFunctionConfig = { ...rest, ...bundles, logPath };
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, JSON.stringify(config)], {
    cwd: PROJECT_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('the Invoke API process did not start');
  const stop = () => {
    try {
      process.kill(pid);
    } catch {
      // already gone
    }
  };
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the Invoke API did not listen within ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
      let output = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        output += chunk;
        const line = output.split('\n')[0];
        if (output.includes('\n') && line !== undefined) {
          clearTimeout(timer);
          resolve((JSON.parse(line) as { endpoint: string }).endpoint);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the Invoke API process ended before it listened (exit code ${code})`));
      });
    });
    return { endpoint, pid, logPath, stop };
  } catch (error) {
    stop();
    throw error;
  } finally {
    // Detached from this run: it outlives it, and this run need not wait for it.
    child.removeAllListeners('exit');
    child.stdout.destroy();
    child.unref();
  }
}
