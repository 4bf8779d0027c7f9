/**
 * A process that serves one function's bundle through the local Invoke API until it is killed: what
 * `npm start -- --keep` leaves running beside DynamoDB Local (local/demo/kept-invoke-api.ts starts it,
 * detached). Its one argument is a KeptFunctionConfig as JSON; its one line of stdout is
 * `{"endpoint":"http://127.0.0.1:PORT"}` once it listens. The function's own output goes to `logPath`.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { startInvokeApiServer } from './invoke-api-server.js';
import { WorkerFunction } from './worker-function.js';

export interface KeptFunctionConfig {
  readonly functionName: string;
  readonly runtimePath: string;
  readonly handlerPath: string;
  readonly handlerExport: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly dynamoDbEndpoint: string;
  readonly timeoutMs: number;
  readonly logPath: string;
}

const config = JSON.parse(process.argv[2] ?? '{}') as KeptFunctionConfig;
mkdirSync(dirname(config.logPath), { recursive: true });
const log = createWriteStream(config.logPath, { flags: 'a' });
const fn = new WorkerFunction({ ...config, onOutput: (line) => log.write(`${line}\n`) });
const server = await startInvokeApiServer({
  functions: new Map([[config.functionName, fn]]),
  timeoutMs: config.timeoutMs,
});
// The starter reads this line and closes the pipe: nothing is written to stdout after it.
process.stdout.on('error', () => undefined);
process.stdout.write(`${JSON.stringify({ endpoint: server.endpoint })}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void Promise.all([server.close(), fn.close()]).finally(() => process.exit(0));
  });
}
