/**
 * The Lambda side of `replay --function` with the real @aws-sdk/client-lambda client: what the function
 * answers becomes a batch response or a thrown FunctionInvocationError, and what a person can fix
 * (access denied, nothing listening, a stack that may not be read) is one line naming the fix. Servers
 * here are loopback ones: the local Invoke API with in-process handlers, and two that answer a refusal
 * as Lambda and CloudFormation do.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessFunction } from '../../../local/esm/lambda-function.js';
import {
  type InvokeApiServer,
  startInvokeApiServer,
} from '../../../local/lambda-runtime/invoke-api-server.js';
import { UserError } from '../../../operator/cli/user-error.js';
import {
  batchResponseOf,
  FunctionInvocationError,
  functionEnvironment,
  lambdaInvoker,
} from '../../../operator/lambda-invoke.js';
import { readStackOutputs } from '../../../operator/stack-outputs.js';
import { kafkaEvent } from '../../support/kafka-events.js';

let invokeApi: InvokeApiServer;
let refusing: Server;
let refusingEndpoint: string;
const event = kafkaEvent([{ offset: 3, value: { event_id: 'e3' } }]);
const through = (functionName: string, lambdaEndpoint = invokeApi.endpoint) =>
  lambdaInvoker({ functionName, region: undefined, profile: undefined, lambdaEndpoint });

beforeAll(async () => {
  invokeApi = await startInvokeApiServer({
    functions: new Map([
      [
        'reports',
        new InProcessFunction(async () => ({
          batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 3 } }],
        })),
      ],
      ['acks', new InProcessFunction(async () => null)],
      [
        'configured',
        new InProcessFunction(async () => null, {
          functionName: 'configured',
          environment: { DEDUP_FIELD: 'order_ref' },
        }),
      ],
      ['answers-text', new InProcessFunction(async () => 'done')],
      [
        'throws',
        new InProcessFunction(async () => {
          throw new RangeError('amount out of range');
        }),
      ],
    ]),
  });
  // Lambda's and CloudFormation's refusal of an identity without the action.
  refusing = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url?.startsWith('/2015-03-31/')) {
        response
          .writeHead(403, { 'content-type': 'application/json', 'x-amzn-ErrorType': 'AccessDeniedException' })
          .end(
            JSON.stringify({
              Type: 'User',
              Message:
                'User: arn:aws:iam::123456789012:user/ops is not authorized to perform: lambda:InvokeFunction',
            }),
          );
        return;
      }
      response
        .writeHead(403, { 'content-type': 'text/xml' })
        .end(
          '<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User: ops is not authorized to perform: cloudformation:DescribeStacks</Message></Error><RequestId>1</RequestId></ErrorResponse>',
        );
    });
  });
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  refusingEndpoint = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await invokeApi.close();
  refusing.closeAllConnections();
  await new Promise((resolve) => refusing.close(resolve));
});

describe('lambdaInvoker', () => {
  it("returns the function's batch response, and nothing reported for null", async () => {
    expect(await (await through('reports'))(event)).toEqual({
      batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 3 } }],
    });
    expect(await (await through('acks'))(event)).toBeUndefined();
  });

  it("throws a function error with the function's errorType and errorMessage", async () => {
    const invoke = await through('throws');
    const error = await invoke(event).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FunctionInvocationError);
    expect(error).toMatchObject({
      errorType: 'RangeError',
      errorMessage: 'amount out of range',
      message: 'RangeError: amount out of range',
    });
  });

  it('throws for an answer that is not a Kafka batch response', async () => {
    await expect((await through('answers-text'))(event)).rejects.toThrow(
      'the function answered "done", not a Kafka batch response',
    );
  });

  it('names lambda:InvokeFunction when Lambda denies the invocation (checked before any invocation)', async () => {
    const attempt = through('orders', refusingEndpoint);
    await expect(attempt).rejects.toThrow(UserError);
    await expect(attempt).rejects.toThrow(
      'not allowed to invoke orders: your identity needs lambda:InvokeFunction on it (docs/operate.md#permissions)',
    );
  });

  it("reads the function's environment (GetFunctionConfiguration), and names the action when denied", async () => {
    const at = (lambdaEndpoint: string, functionName = 'configured') =>
      functionEnvironment({ functionName, region: undefined, profile: undefined, lambdaEndpoint });
    expect(await at(invokeApi.endpoint)).toEqual({ DEDUP_FIELD: 'order_ref' });
    await expect(at(invokeApi.endpoint, 'missing')).rejects.toThrow(/^function missing not found at http/);
    await expect(at(refusingEndpoint, 'orders')).rejects.toThrow(
      'not allowed to read the configuration of orders: your identity needs lambda:GetFunctionConfiguration on it (docs/operate.md#permissions)',
    );
  });

  it('says nothing answers at a --lambda-endpoint that is not listening', async () => {
    await expect(through('orders', 'http://127.0.0.1:9')).rejects.toThrow(
      /^nothing answers at http:\/\/127\.0\.0\.1:9: is the local runtime running\?/,
    );
  });
});

describe('readStackOutputs', () => {
  it('names cloudformation:DescribeStacks when the stack may not be read', async () => {
    const saved = { ...process.env };
    // Some identity, which the stand-in refuses as CloudFormation refuses one without the action.
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_CLOUDFORMATION: refusingEndpoint,
      AWS_ACCESS_KEY_ID: 'ops',
      AWS_SECRET_ACCESS_KEY: 'ops',
    });
    try {
      await expect(readStackOutputs('Orders', { region: 'us-east-1', profile: undefined })).rejects.toThrow(
        'not allowed to read stack Orders: your identity needs cloudformation:DescribeStacks on it (docs/operate.md#permissions)',
      );
    } finally {
      for (const name of ['AWS_ENDPOINT_URL_CLOUDFORMATION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});

describe('batchResponseOf', () => {
  it('reads what Lambda reads as a Kafka batch response, and refuses anything else', () => {
    expect(batchResponseOf(undefined)).toBeUndefined();
    expect(batchResponseOf(null)).toBeUndefined();
    expect(batchResponseOf({})).toEqual({ batchItemFailures: [] });
    for (const payload of ['ok', 3, [], { batchItemFailures: 'none' }]) {
      expect(() => batchResponseOf(payload)).toThrow(/not a Kafka batch response$/);
    }
  });
});
