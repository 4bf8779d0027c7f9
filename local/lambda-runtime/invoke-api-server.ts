/**
 * Lambda's Invoke API on loopback, served by local functions (the worker-thread runtime running the very
 * bundle CDK deploys), so a tool that calls Lambda (`msk-inbox quarantine replay --function`) runs here
 * against the real @aws-sdk/client-lambda client, pointed at this server by `endpoint` or
 * AWS_ENDPOINT_URL_LAMBDA.
 *
 * Only what a synchronous invocation needs, as the API reference describes it
 * (https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html) and as the SDK's restJson1 protocol
 * parses it (@aws-sdk/client-lambda's `Invoke$`, `InvocationResponse$` and error schemas):
 *
 * - `POST /2015-03-31/functions/{FunctionName}/invocations`: the name, a partial ARN
 *   (`123456789012:function:name`) or a full ARN, with an optional `:$LATEST` suffix or `Qualifier=$LATEST`.
 * - `X-Amz-Invocation-Type`: `RequestResponse` (the default) answers 200 with the function's JSON and
 *   `X-Amz-Executed-Version`; `DryRun` answers 204 once the function and the request check out.
 * - A function error is still 200, with `X-Amz-Function-Error: Unhandled` and the runtime's error object
 *   `{errorType, errorMessage, trace}` as payload
 *   (https://docs.aws.amazon.com/lambda/latest/dg/nodejs-exceptions.html); the SDK returns it as
 *   `FunctionError` and `Payload`, it does not throw.
 * - `GET /2015-03-31/functions/{FunctionName}/configuration`
 *   (https://docs.aws.amazon.com/lambda/latest/api/API_GetFunctionConfiguration.html): the function's
 *   name, ARN and `Environment.Variables` (what `msk-inbox ... replay --function` reads the consumer's
 *   DEDUP_* settings from); nothing else of a configuration is modelled.
 * - API errors carry `x-amzn-ErrorType` (the SDK reads the error's name from it first) and a JSON body
 *   with `Type` and the message under the member name the SDK's schema gives it: `Message` for
 *   ResourceNotFoundException, `message` for the others (the SDK accepts both as the error's message).
 *
 * No signature is checked: the callers are this machine's tools, on loopback.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InvocationOutcome, LambdaFunction } from '../esm/lambda-function.js';
// Lambda's limit for a synchronous invocation's request payload (6 MB), one constant for the emulator.
import { MAX_INVOCATION_PAYLOAD_BYTES, type MskEvent } from '../esm/msk-event.js';

export interface InvokeApiOptions {
  /** The functions served, by name; a Map the caller keeps may change while the server runs. */
  readonly functions: ReadonlyMap<string, LambdaFunction>;
  /** The function timeout each invocation gets. @default 30000 */
  readonly timeoutMs?: number;
  /** @default 0 (a free port) */
  readonly port?: number;
}

export interface InvokeApiServer {
  /** `http://127.0.0.1:PORT`, for the client's `endpoint` or AWS_ENDPOINT_URL_LAMBDA. */
  readonly endpoint: string;
  /** Stops listening; the functions are the caller's to close. */
  close(): Promise<void>;
}

const EXECUTED_VERSION = '$LATEST';
const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;
const CONFIGURATION_PATH = /^\/2015-03-31\/functions\/([^/]+)\/configuration$/;

export async function startInvokeApiServer(options: InvokeApiOptions): Promise<InvokeApiServer> {
  const server = createServer((request, response) => {
    void serve(options, request, response).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, 'ServiceException', String(error));
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function serve(options: InvokeApiOptions, request: IncomingMessage, response: ServerResponse) {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const path = INVOKE_PATH.exec(url.pathname);
  const body = await readBody(request);
  const configurationPath = CONFIGURATION_PATH.exec(url.pathname);
  if (request.method === 'GET' && configurationPath !== null) {
    return sendConfiguration(options, decodeURIComponent(configurationPath[1] ?? ''), url, response);
  }
  if (request.method !== 'POST' || path === null) {
    return sendError(
      response,
      404,
      'UnknownOperationException',
      `no operation at ${request.method} ${url.pathname}`,
    );
  }
  const requested = decodeURIComponent(path[1] ?? '');
  const { name, qualifier } = functionNameOf(requested, url.searchParams.get('Qualifier'));
  const fn = options.functions.get(name);
  if (fn === undefined || (qualifier !== undefined && qualifier !== EXECUTED_VERSION)) {
    // Lambda names the function by its ARN in this message; the SDK reads `Message` for this error.
    const message = `Function not found: ${requested}${qualifier === undefined ? '' : `:${qualifier}`}`;
    return sendError(response, 404, 'ResourceNotFoundException', message, 'Message');
  }
  if (body === undefined) {
    return sendError(
      response,
      413,
      'RequestTooLargeException',
      `Request must be smaller than ${MAX_INVOCATION_PAYLOAD_BYTES} bytes for the InvokeFunction operation`,
    );
  }
  let event: unknown;
  try {
    // An invocation without a payload gets an empty object, as Lambda gives it.
    event = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
  } catch (error) {
    return sendError(
      response,
      400,
      'InvalidRequestContentException',
      `Could not parse request body into json: ${(error as Error).message}`,
    );
  }
  const invocationType = headerOf(request, 'x-amz-invocation-type') ?? 'RequestResponse';
  if (invocationType === 'DryRun') {
    response.writeHead(204, { 'x-amzn-RequestId': randomUUID() }).end();
    return;
  }
  if (invocationType !== 'RequestResponse') {
    return sendError(
      response,
      400,
      'InvalidParameterValueException',
      `InvocationType ${invocationType} is not served here: RequestResponse or DryRun`,
    );
  }
  const requestId = randomUUID();
  const timeoutMs = options.timeoutMs ?? 30_000;
  const outcome = await fn.invoke({
    // The function gets whatever was sent, as in Lambda; the port types it as the MSK event it expects.
    event: event as MskEvent,
    requestId,
    deadlineMs: Date.now() + timeoutMs,
  });
  const headers = {
    'content-type': 'application/json',
    'x-amzn-RequestId': requestId,
    'X-Amz-Executed-Version': EXECUTED_VERSION,
  };
  if (outcome.kind === 'returned') {
    response.writeHead(200, headers).end(JSON.stringify(outcome.response ?? null));
    return;
  }
  response
    .writeHead(200, { ...headers, 'X-Amz-Function-Error': 'Unhandled' })
    .end(JSON.stringify(errorPayload(outcome, requestId, timeoutMs)));
}

/** GetFunctionConfiguration's answer: the name, the ARN and the environment variables. */
function sendConfiguration(
  options: InvokeApiOptions,
  requested: string,
  url: URL,
  response: ServerResponse,
): void {
  const { name, qualifier } = functionNameOf(requested, url.searchParams.get('Qualifier'));
  const fn = options.functions.get(name);
  if (fn === undefined || (qualifier !== undefined && qualifier !== EXECUTED_VERSION)) {
    const message = `Function not found: ${requested}${qualifier === undefined ? '' : `:${qualifier}`}`;
    sendError(response, 404, 'ResourceNotFoundException', message, 'Message');
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json', 'x-amzn-RequestId': randomUUID() }).end(
    JSON.stringify({
      FunctionName: name,
      FunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${name}`,
      Version: EXECUTED_VERSION,
      Environment: { Variables: fn.environment ?? {} },
    }),
  );
}

/** The runtime's error object for an invocation that did not return. */
export function errorPayload(
  outcome: Exclude<InvocationOutcome, { kind: 'returned' }>,
  requestId: string,
  timeoutMs: number,
): { errorType: string; errorMessage: string; trace: string[] } {
  switch (outcome.kind) {
    case 'threw':
      return { errorType: outcome.errorType, errorMessage: outcome.errorMessage, trace: [] };
    case 'timed-out':
      return {
        errorType: 'Sandbox.Timedout',
        errorMessage: `RequestId: ${requestId} Error: Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`,
        trace: [],
      };
    case 'crashed':
      return {
        errorType: 'Runtime.ExitError',
        errorMessage: `RequestId: ${requestId} Error: Runtime exited: ${outcome.reason}`,
        trace: [],
      };
  }
}

/**
 * The function's name and qualifier from what the caller gave: a name, `name:qualifier`, a partial ARN
 * (`account:function:name[:qualifier]`) or a full one (`arn:aws:lambda:region:account:function:name[:qualifier]`).
 * A `Qualifier` parameter, when given, is the qualifier.
 */
export function functionNameOf(
  given: string,
  qualifierParameter: string | null,
): { name: string; qualifier: string | undefined } {
  const parts = given.split(':');
  const at = parts.indexOf('function');
  const [name = '', suffix] = at >= 0 ? parts.slice(at + 1) : parts;
  return { name, qualifier: qualifierParameter ?? suffix };
}

/** The body, or undefined when it passes Lambda's payload limit. */
async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size <= MAX_INVOCATION_PAYLOAD_BYTES) chunks.push(chunk as Buffer);
  }
  return size > MAX_INVOCATION_PAYLOAD_BYTES ? undefined : Buffer.concat(chunks);
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function sendError(
  response: ServerResponse,
  status: number,
  errorType: string,
  message: string,
  messageMember: 'message' | 'Message' = 'message',
): void {
  response
    .writeHead(status, {
      'content-type': 'application/json',
      'x-amzn-RequestId': randomUUID(),
      'x-amzn-ErrorType': errorType,
    })
    // Lambda's Type says whose fault it is: the caller's (4xx) or the service's.
    .end(JSON.stringify({ Type: status < 500 ? 'User' : 'Service', [messageMember]: message }));
}
