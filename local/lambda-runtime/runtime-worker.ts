/**
 * The execution environment's runtime, run in a worker thread: it imports the function bundle once (the
 * cold start), then runs one invocation per message, like Lambda's Node.js runtime. Bundled by esbuild into
 * plain JavaScript beside the function bundle, so the worker needs no TypeScript loader.
 */
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { createLambdaContext, type FunctionIdentity, untilDeadline } from '../esm/lambda-function.js';
import { LOCAL_TRACES_FILE_VARIABLE } from '../tracing/trace-file.js';

export interface RuntimeWorkerData {
  readonly handlerPath: string;
  readonly handlerExport: string;
  readonly identity: FunctionIdentity;
}

export type RuntimeRequest = {
  readonly requestId: string;
  readonly event: unknown;
  readonly deadlineMs: number;
};

export type RuntimeReply =
  | { readonly type: 'ready' }
  | { readonly type: 'init-error'; readonly errorType: string; readonly errorMessage: string }
  | { readonly type: 'returned'; readonly requestId: string; readonly responseJson: string }
  | {
      readonly type: 'threw';
      readonly requestId: string;
      readonly errorType: string;
      readonly errorMessage: string;
    };

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

const port = parentPort;
const data = workerData as RuntimeWorkerData;
if (!port) throw new Error('runtime-worker must run in a worker thread');

const post = (reply: RuntimeReply) => port.postMessage(reply);

try {
  // As the ADOT layer's wrapper: the SDK is registered before the function's module loads.
  const tracesFile = process.env[LOCAL_TRACES_FILE_VARIABLE];
  if (tracesFile) {
    const { registerFileTracing } = await import('../tracing/file-tracing.js');
    registerFileTracing(tracesFile, data.identity.functionName);
  }
  const module = (await import(pathToFileURL(data.handlerPath).href)) as Record<string, unknown>;
  const handler = module[data.handlerExport];
  if (typeof handler !== 'function')
    throw new Error(`${data.handlerPath} exports no function ${data.handlerExport}`);
  port.on('message', (request: RuntimeRequest) => void invoke(handler as Handler, request));
  post({ type: 'ready' });
} catch (error) {
  // Lambda reports a failed module import as Runtime.ImportModuleError.
  post({ type: 'init-error', errorType: 'Runtime.ImportModuleError', errorMessage: describe(error) });
}

async function invoke(handler: Handler, request: RuntimeRequest): Promise<void> {
  const context = createLambdaContext(data.identity, {
    requestId: request.requestId,
    remainingMs: untilDeadline(request.deadlineMs),
  });
  try {
    const response = await handler(request.event, context);
    // Lambda serialises the response as JSON; undefined becomes null.
    post({ type: 'returned', requestId: request.requestId, responseJson: JSON.stringify(response ?? null) });
  } catch (error) {
    post({
      type: 'threw',
      requestId: request.requestId,
      errorType: error instanceof Error ? error.name : typeof error,
      errorMessage: describe(error),
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
