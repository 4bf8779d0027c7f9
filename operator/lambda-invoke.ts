/**
 * `--function NAME`: the deployed function, invoked through Lambda's Invoke API
 * (https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html) with @aws-sdk/client-lambda. The
 * function runs with its own role and environment; the operator needs `lambda:InvokeFunction` on it, and
 * `lambda:GetFunctionConfiguration` to read that environment (functionEnvironment: the consumer's settings).
 * `--lambda-endpoint` (or the SDK's own AWS_ENDPOINT_URL_LAMBDA) points the client at the local
 * runtime's Invoke API (local/lambda-runtime/invoke-api-server.ts).
 */
import { GetFunctionConfigurationCommand, InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { KafkaBatchResponse } from '../lambdas/core/kafka-event.js';
import { credentialAdvice } from './aws-errors.js';
import { UserError } from './cli/user-error.js';
import { type LocalFallback, withLocalFallback } from './local-fallback.js';
import type { Invoke } from './local-handler.js';

export interface LambdaTarget {
  readonly functionName: string;
  readonly region: string | undefined;
  readonly profile: string | undefined;
  /**
   * The local runtime's Invoke API (it checks no signature): signed as the SDK says, with the local pair
   * and region only where nothing is configured (local-fallback.ts).
   */
  readonly lambdaEndpoint: string | undefined;
}

/**
 * The function answered with a function error (`X-Amz-Function-Error`): its error object's type and
 * message. A replay counts it as `failed` and puts the row back as it was.
 */
export class FunctionInvocationError extends Error {
  readonly errorType: string;
  readonly errorMessage: string;
  constructor(errorType: string, errorMessage: string) {
    super(`${errorType}: ${errorMessage}`);
    this.name = 'FunctionInvocationError';
    this.errorType = errorType;
    this.errorMessage = errorMessage;
  }
}

/**
 * An Invoke through Lambda, once a dry run (InvocationType DryRun: the function exists and the caller may
 * invoke it) has checked what a person can fix, so no row is touched before that is known.
 */
export async function lambdaInvoker(target: LambdaTarget): Promise<Invoke> {
  const { client, where } = await lambdaClientFor(target);
  const send = async (input: Omit<ConstructorParameters<typeof InvokeCommand>[0], 'FunctionName'>) => {
    try {
      return await client.send(new InvokeCommand({ FunctionName: target.functionName, ...input }));
    } catch (error) {
      throw lambdaAdvice(target.functionName, await where(), error, 'lambda:InvokeFunction') ?? error;
    }
  };
  await send({ InvocationType: 'DryRun' });
  return async (event) => {
    const answer = await send({
      InvocationType: 'RequestResponse',
      Payload: new TextEncoder().encode(JSON.stringify(event)),
    });
    const payload = parsePayload(answer.Payload);
    if (answer.FunctionError !== undefined) {
      const { errorType, errorMessage } = (payload ?? {}) as { errorType?: unknown; errorMessage?: unknown };
      throw new FunctionInvocationError(
        typeof errorType === 'string' ? errorType : answer.FunctionError,
        typeof errorMessage === 'string' ? errorMessage : JSON.stringify(payload),
      );
    }
    return batchResponseOf(payload);
  };
}

/**
 * The function's environment variables as deployed (GetFunctionConfiguration,
 * https://docs.aws.amazon.com/lambda/latest/api/API_GetFunctionConfiguration.html): the settings its
 * handler reads, so a replay derives dedup keys and the dedup window as the function does.
 */
export async function functionEnvironment(target: LambdaTarget): Promise<Record<string, string>> {
  const { client, where } = await lambdaClientFor(target);
  try {
    const configuration = await client.send(
      new GetFunctionConfigurationCommand({ FunctionName: target.functionName }),
    );
    return { ...(configuration.Environment?.Variables ?? {}) };
  } catch (error) {
    throw lambdaAdvice(target.functionName, await where(), error, 'lambda:GetFunctionConfiguration') ?? error;
  }
}

async function lambdaClientFor(
  target: LambdaTarget,
): Promise<{ client: LambdaClient; where: () => Promise<string> }> {
  const make = (fallback: LocalFallback) =>
    new LambdaClient({
      maxAttempts: 3,
      ...(target.region === undefined ? {} : { region: target.region }),
      ...(target.profile === undefined ? {} : { profile: target.profile }),
      ...(target.lambdaEndpoint === undefined ? {} : { endpoint: target.lambdaEndpoint }),
      ...fallback,
    });
  const { client } = await withLocalFallback(make, target.lambdaEndpoint, target.profile);
  // For messages only: where the client went (the SDK's own AWS_ENDPOINT_URL_LAMBDA sends it elsewhere too).
  const where = async () => {
    const endpoint = target.lambdaEndpoint ?? process.env.AWS_ENDPOINT_URL_LAMBDA;
    if (endpoint !== undefined) return `at ${endpoint}`;
    return `in ${(await client.config.region().catch(() => undefined)) ?? 'the default region'}`;
  };
  return { client, where };
}

function parsePayload(payload: Uint8Array | undefined): unknown {
  const text = payload === undefined ? '' : new TextDecoder().decode(payload);
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`the function answered with something that is not JSON: ${text.slice(0, 80)}`);
  }
}

/** The function's answer as Lambda reads a Kafka batch response: null or `{}` reports nothing. */
export function batchResponseOf(payload: unknown): KafkaBatchResponse | undefined {
  if (payload === undefined || payload === null) return undefined;
  const failures = (payload as { batchItemFailures?: unknown }).batchItemFailures;
  if (
    typeof payload === 'object' &&
    !Array.isArray(payload) &&
    (failures === undefined || Array.isArray(failures))
  ) {
    return { batchItemFailures: (failures ?? []) as KafkaBatchResponse['batchItemFailures'] };
  }
  throw new Error(
    `the function answered ${JSON.stringify(payload).slice(0, 80)}, not a Kafka batch response`,
  );
}

function lambdaAdvice(
  functionName: string,
  where: string,
  error: unknown,
  action: string,
): UserError | undefined {
  const name = (error as { name?: string }).name ?? '';
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  const options = { cause: error };
  if (name === 'ResourceNotFoundException') {
    return new UserError(
      `function ${functionName} not found ${where}: check --function (or --stack), --region or --lambda-endpoint`,
      options,
    );
  }
  if (name === 'AccessDeniedException') {
    return new UserError(
      `not allowed to ${action === 'lambda:InvokeFunction' ? 'invoke' : 'read the configuration of'} ${functionName}: your identity needs ${action} on it (docs/operate.md#permissions)`,
      options,
    );
  }
  if (where.startsWith('at ') && (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(message))) {
    return new UserError(
      `nothing answers ${where}: is the local runtime running? (\`npm start -- --keep\` prints its Invoke API endpoint)`,
      options,
    );
  }
  return credentialAdvice(error);
}
