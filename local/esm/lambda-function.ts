/**
 * The function port: how an emulated event source mapping invokes a handler and what can come back. Two
 * runtimes implement it: `InProcessFunction` (a handler function in this process, for tests) and the
 * worker-thread runtime in local/lambda-runtime/ (the deployed bundle in its own execution environment,
 * which can really crash). The event type is a parameter: the Kafka mapping (local/esm/) sends MSK events,
 * the DynamoDB stream mapping (local/streams/) stream events; it defaults to the MSK event.
 */
import type { Context } from 'aws-lambda';
import type { MskEvent } from './msk-event.js';

/**
 * Lambda's Node.js context object (https://docs.aws.amazon.com/lambda/latest/dg/nodejs-context.html), as
 * `aws-lambda` types it, so handlers take it without a cast.
 */
export type LambdaContext = Context;

export interface InvocationRequest<TEvent = MskEvent> {
  readonly event: TEvent;
  readonly requestId: string;
  /** Epoch ms at which Lambda would stop the invocation (start + function timeout). */
  readonly deadlineMs: number;
  /**
   * Fault injection: the execution environment dies after this many DynamoDB writes, with the last one
   * applied but its answer never seen. Runtimes that cannot count writes lose the response instead.
   */
  readonly crashAfterWrites?: number;
}

export type InvocationOutcome =
  | { readonly kind: 'returned'; readonly response: unknown }
  /** A function error: the handler threw or rejected. */
  | { readonly kind: 'threw'; readonly errorType: string; readonly errorMessage: string }
  /** The execution environment died: the response, if any, is lost. */
  | { readonly kind: 'crashed'; readonly reason: string }
  | { readonly kind: 'timed-out' };

export interface LambdaFunction<TEvent = MskEvent> {
  describe(): string;
  /** The function's configured environment variables, as GetFunctionConfiguration gives them. */
  readonly environment?: Readonly<Record<string, string>>;
  invoke(request: InvocationRequest<TEvent>): Promise<InvocationOutcome>;
  /** Ends every execution environment. */
  close(): Promise<void>;
}

/** A handler as Lambda's Node.js runtime calls it: the event and the context, answered by a promise. */
export type FunctionHandler<TEvent> = (event: TEvent, context: LambdaContext) => Promise<unknown>;

export type KafkaHandler = FunctionHandler<MskEvent>;

export interface FunctionIdentity {
  readonly functionName: string;
  /** @default 1024 */
  readonly memoryLimitInMB?: number;
  /** The variables the local Invoke API reports as its configuration. @default {} */
  readonly environment?: Readonly<Record<string, string>>;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** @default '123456789012' */
  readonly accountId?: string;
}

export function functionArn(identity: FunctionIdentity): string {
  return `arn:aws:lambda:${identity.region ?? 'us-east-1'}:${identity.accountId ?? '123456789012'}:function:${identity.functionName}`;
}

/** One invocation, as the context object describes it. */
interface InvocationIdentity {
  readonly requestId: string;
  /** What `getRemainingTimeInMillis` answers: real time (untilDeadline) or a test's or the soak's clock. */
  readonly remainingMs: () => number;
}

/**
 * The one builder of Lambda's context object, for every runtime here: the in-process function, the
 * worker-thread runtime, the soak, the bench and the tests.
 */
export function createLambdaContext(
  identity: FunctionIdentity,
  invocation: InvocationIdentity,
): LambdaContext {
  const { requestId } = invocation;
  return {
    functionName: identity.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: functionArn(identity),
    memoryLimitInMB: String(identity.memoryLimitInMB ?? 1024),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${identity.functionName}`,
    logStreamName: `local/[$LATEST]${requestId.replaceAll('-', '')}`,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: invocation.remainingMs,
    // The legacy callbacks are not used with async handlers; present so the object is a whole Context.
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Remaining time on the wall clock until a deadline (epoch ms), never negative. */
export function untilDeadline(deadlineMs: number): () => number {
  return () => Math.max(0, deadlineMs - Date.now());
}

/**
 * Runs a handler function in this process. It cannot stop a handler mid-batch: a crash runs the handler
 * to the end and then loses its response, and a timed-out handler keeps running in the background.
 */
export class InProcessFunction<TEvent = MskEvent> implements LambdaFunction<TEvent> {
  readonly #handler: FunctionHandler<TEvent>;
  readonly #identity: FunctionIdentity;

  constructor(handler: FunctionHandler<TEvent>, identity: FunctionIdentity = { functionName: 'in-process' }) {
    this.#handler = handler;
    this.#identity = identity;
  }

  get environment(): Readonly<Record<string, string>> {
    return this.#identity.environment ?? {};
  }

  describe(): string {
    return `in-process ${this.#identity.functionName}`;
  }

  async invoke(request: InvocationRequest<TEvent>): Promise<InvocationOutcome> {
    const context = createLambdaContext(this.#identity, {
      requestId: request.requestId,
      remainingMs: untilDeadline(request.deadlineMs),
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<InvocationOutcome>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'timed-out' }), Math.max(0, request.deadlineMs - Date.now()));
    });
    const ran = this.#handler(request.event, context).then(
      (response): InvocationOutcome =>
        request.crashAfterWrites === undefined
          ? { kind: 'returned', response }
          : { kind: 'crashed', reason: 'response lost after the handler ran (in-process runtime)' },
      (error: unknown): InvocationOutcome => ({
        kind: 'threw',
        errorType: error instanceof Error ? error.name : typeof error,
        errorMessage: error instanceof Error ? error.message : String(error),
      }),
    );
    try {
      return await Promise.race([ran, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {}
}
