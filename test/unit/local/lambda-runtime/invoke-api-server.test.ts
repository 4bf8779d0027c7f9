/**
 * The local Invoke API as the real @aws-sdk/client-lambda client sees it: a response, a function error,
 * a dry run, and each API error parsed into the SDK's own exception class. Handlers run in this process
 * (InProcessFunction); the server listens on loopback only.
 */
import {
  InvalidRequestContentException,
  InvokeCommand,
  LambdaClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessFunction, type LambdaFunction } from '../../../../local/esm/lambda-function.js';
import {
  functionNameOf,
  type InvokeApiServer,
  startInvokeApiServer,
} from '../../../../local/lambda-runtime/invoke-api-server.js';

let server: InvokeApiServer;
let lambda: LambdaClient;
const functions = new Map<string, LambdaFunction>([
  [
    'echo',
    new InProcessFunction(async (event, context) => ({ event, functionName: context.functionName }), {
      functionName: 'echo',
    }),
  ],
  [
    'throws',
    new InProcessFunction(async () => {
      throw new TypeError('no such field');
    }),
  ],
  ['nothing', new InProcessFunction(async () => undefined)],
  ['hangs', new InProcessFunction(() => new Promise(() => {}))],
]);
const text = (payload: Uint8Array | undefined) => new TextDecoder().decode(payload);
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

beforeAll(async () => {
  server = await startInvokeApiServer({ functions, timeoutMs: 300 });
  lambda = new LambdaClient({
    endpoint: server.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
});

afterAll(async () => {
  lambda.destroy();
  await server.close();
});

describe('the local Invoke API, through the real Lambda client', () => {
  it("answers 200 with the function's JSON and the executed version", async () => {
    const answer = await lambda.send(new InvokeCommand({ FunctionName: 'echo', Payload: json({ a: 1 }) }));
    expect(answer.StatusCode).toBe(200);
    expect(answer.ExecutedVersion).toBe('$LATEST');
    expect(answer.FunctionError).toBeUndefined();
    expect(JSON.parse(text(answer.Payload))).toEqual({ event: { a: 1 }, functionName: 'echo' });
  });

  it('finds the function by a full ARN, a partial ARN, or with the $LATEST qualifier', async () => {
    for (const [FunctionName, Qualifier] of [
      ['arn:aws:lambda:us-east-1:123456789012:function:echo', undefined],
      ['123456789012:function:echo', undefined],
      ['echo:$LATEST', undefined],
      ['echo', '$LATEST'],
    ] as const) {
      const answer = await lambda.send(new InvokeCommand({ FunctionName, Qualifier, Payload: json(7) }));
      expect(JSON.parse(text(answer.Payload)).event).toBe(7);
    }
  });

  it('answers null for a handler that returns nothing', async () => {
    const answer = await lambda.send(new InvokeCommand({ FunctionName: 'nothing', Payload: json({}) }));
    expect(text(answer.Payload)).toBe('null');
  });

  it('reports a function error as Lambda does: 200, X-Amz-Function-Error Unhandled, the error object', async () => {
    const answer = await lambda.send(new InvokeCommand({ FunctionName: 'throws', Payload: json({}) }));
    expect(answer.StatusCode).toBe(200);
    expect(answer.FunctionError).toBe('Unhandled');
    expect(JSON.parse(text(answer.Payload))).toEqual({
      errorType: 'TypeError',
      errorMessage: 'no such field',
      trace: [],
    });
  });

  it('reports a timeout as a function error naming the timeout', async () => {
    const answer = await lambda.send(new InvokeCommand({ FunctionName: 'hangs', Payload: json({}) }));
    expect(answer.FunctionError).toBe('Unhandled');
    expect(JSON.parse(text(answer.Payload))).toMatchObject({
      errorType: 'Sandbox.Timedout',
      errorMessage: expect.stringMatching(/Task timed out after 0\.30 seconds$/),
    });
  });

  it('answers a dry run with 204 and runs nothing', async () => {
    const answer = await lambda.send(
      new InvokeCommand({ FunctionName: 'throws', InvocationType: 'DryRun', Payload: json({}) }),
    );
    expect(answer.StatusCode).toBe(204);
  });

  it('throws ResourceNotFoundException (404) for a function it does not serve, or another qualifier', async () => {
    for (const input of [{ FunctionName: 'nope' }, { FunctionName: 'echo', Qualifier: '3' }]) {
      const error = await lambda.send(new InvokeCommand({ ...input, Payload: json({}) })).catch((e) => e);
      expect(error).toBeInstanceOf(ResourceNotFoundException);
      expect(error).toMatchObject({
        name: 'ResourceNotFoundException',
        Type: 'User',
        $metadata: { httpStatusCode: 404 },
        message: expect.stringMatching(/^Function not found: /),
      });
    }
  });

  it('throws InvalidRequestContentException (400) for a payload that is not JSON', async () => {
    const error = await lambda
      .send(new InvokeCommand({ FunctionName: 'echo', Payload: new TextEncoder().encode('{"cut') }))
      .catch((e) => e);
    expect(error).toBeInstanceOf(InvalidRequestContentException);
    expect(error).toMatchObject({
      Type: 'User',
      $metadata: { httpStatusCode: 400 },
      message: expect.stringMatching(/^Could not parse request body into json/),
    });
  });

  it('refuses an invocation type it does not serve (Event) with InvalidParameterValueException', async () => {
    const error = await lambda
      .send(new InvokeCommand({ FunctionName: 'echo', InvocationType: 'Event', Payload: json({}) }))
      .catch((e) => e);
    expect(error).toMatchObject({
      name: 'InvalidParameterValueException',
      $metadata: { httpStatusCode: 400 },
    });
  });
});

describe('functionNameOf', () => {
  it('takes the name and qualifier out of a name, a partial ARN or a full ARN', () => {
    expect(functionNameOf('f', null)).toEqual({ name: 'f', qualifier: undefined });
    expect(functionNameOf('f:live', null)).toEqual({ name: 'f', qualifier: 'live' });
    expect(functionNameOf('1:function:f', '$LATEST')).toEqual({ name: 'f', qualifier: '$LATEST' });
    expect(functionNameOf('arn:aws:lambda:eu-west-1:1:function:f:2', null)).toEqual({
      name: 'f',
      qualifier: '2',
    });
  });
});
