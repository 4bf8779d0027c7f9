/**
 * The function as Lambda runs it: the deployed bundle in execution environments, each a worker thread
 * with its own DynamoDB write gate, one invocation at a time, reused while warm. A crash or a timeout ends
 * the environment (terminating the thread mid-batch); the next invocation gets a cold one.
 */
import { Agent } from 'node:http';
import { Worker } from 'node:worker_threads';
import type {
  FunctionIdentity,
  InvocationOutcome,
  InvocationRequest,
  LambdaFunction,
} from '../esm/lambda-function.js';
import { DynamoDbWriteGate } from './dynamodb-write-gate.js';
import type { RuntimeReply, RuntimeRequest, RuntimeWorkerData } from './runtime-worker.js';

export interface WorkerFunctionOptions extends FunctionIdentity {
  /** The built runtime-worker.mjs. */
  readonly runtimePath: string;
  /** The function bundle (.mjs). */
  readonly handlerPath: string;
  /** @default 'handler' */
  readonly handlerExport?: string;
  /** The function's environment variables; AWS_ENDPOINT_URL_DYNAMODB is replaced by the environment's gate. */
  readonly environment: Readonly<Record<string, string>>;
  /** DynamoDB Local's endpoint, behind the gates. */
  readonly dynamoDbEndpoint: string;
  /** Every line the function writes to stdout or stderr (logs, EMF metrics). */
  readonly onOutput?: (line: string) => void;
}

/** The function's module failed to load or its init threw. */
export class FunctionInitError extends Error {
  readonly errorType: string;
  constructor(errorType: string, message: string) {
    super(message);
    this.name = 'FunctionInitError';
    this.errorType = errorType;
  }
}

export interface WorkerFunctionStats {
  coldStarts: number;
}

/** Runs whatever event it is given (an MSK event, a DynamoDB stream event): the bundle decides what it takes. */
export class WorkerFunction implements LambdaFunction<unknown> {
  readonly stats: WorkerFunctionStats = { coldStarts: 0 };
  readonly #options: WorkerFunctionOptions;
  readonly #idle: ExecutionEnvironment[] = [];
  readonly #all = new Set<ExecutionEnvironment>();
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 64 });

  constructor(options: WorkerFunctionOptions) {
    this.#options = options;
  }

  /** As configured: the gate that replaces AWS_ENDPOINT_URL_DYNAMODB per environment is not configuration. */
  get environment(): Readonly<Record<string, string>> {
    return this.#options.environment;
  }

  describe(): string {
    return `worker bundle ${this.#options.handlerPath}`;
  }

  async invoke(request: InvocationRequest<unknown>): Promise<InvocationOutcome> {
    let environment = this.#idle.pop();
    if (!environment) {
      try {
        environment = await this.#coldStart();
      } catch (error) {
        // A failed init is a function error to Lambda: the batch is retried.
        if (!(error instanceof FunctionInitError)) throw error;
        return { kind: 'threw', errorType: error.errorType, errorMessage: error.message };
      }
    }
    const outcome = await environment.invoke(request);
    if (environment.alive) this.#idle.push(environment);
    else this.#all.delete(environment);
    return outcome;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#all].map((environment) => environment.end()));
    this.#all.clear();
    this.#idle.length = 0;
    this.#agent.destroy();
  }

  async #coldStart(): Promise<ExecutionEnvironment> {
    this.stats.coldStarts++;
    const environment = await ExecutionEnvironment.start(this.#options, this.#agent);
    this.#all.add(environment);
    return environment;
  }
}

class ExecutionEnvironment {
  alive = true;
  readonly #worker: Worker;
  readonly #gate: DynamoDbWriteGate;
  #pending: ((reply: RuntimeReply | { type: 'exited' }) => void) | undefined;

  private constructor(worker: Worker, gate: DynamoDbWriteGate) {
    this.#worker = worker;
    this.#gate = gate;
    worker.on('message', (reply: RuntimeReply) => this.#pending?.(reply));
    worker.on('error', (error) =>
      this.#pending?.({
        type: 'threw',
        requestId: '',
        errorType: 'Runtime.Crash',
        errorMessage: String(error),
      }),
    );
    worker.on('exit', () => {
      this.alive = false;
      this.#pending?.({ type: 'exited' });
    });
  }

  static async start(options: WorkerFunctionOptions, agent: Agent): Promise<ExecutionEnvironment> {
    const gate = await DynamoDbWriteGate.start(options.dynamoDbEndpoint, agent);
    const workerData: RuntimeWorkerData = {
      handlerPath: options.handlerPath,
      handlerExport: options.handlerExport ?? 'handler',
      identity: {
        functionName: options.functionName,
        ...(options.memoryLimitInMB !== undefined ? { memoryLimitInMB: options.memoryLimitInMB } : {}),
        ...(options.region !== undefined ? { region: options.region } : {}),
        ...(options.accountId !== undefined ? { accountId: options.accountId } : {}),
      },
    };
    const worker = new Worker(options.runtimePath, {
      workerData,
      env: { ...options.environment, AWS_ENDPOINT_URL_DYNAMODB: gate.endpoint },
      stdout: true,
      stderr: true,
    });
    forwardLines(worker.stdout, options.onOutput);
    forwardLines(worker.stderr, options.onOutput);
    const environment = new ExecutionEnvironment(worker, gate);
    const first = await environment.#next();
    if (first.type !== 'ready') {
      await environment.end();
      throw first.type === 'init-error'
        ? new FunctionInitError(first.errorType, first.errorMessage)
        : new FunctionInitError('Runtime.ExitError', `the runtime ended during init (${first.type})`);
    }
    return environment;
  }

  async invoke(request: InvocationRequest<unknown>): Promise<InvocationOutcome> {
    let crashed = false;
    this.#gate.arm(
      request.crashAfterWrites === undefined
        ? undefined
        : {
            afterWrites: request.crashAfterWrites,
            onCrash: () => {
              crashed = true;
              void this.end();
            },
          },
    );
    const timer = setTimeout(() => void this.end(), Math.max(0, request.deadlineMs - Date.now()));
    const message: RuntimeRequest = {
      requestId: request.requestId,
      event: request.event,
      deadlineMs: request.deadlineMs,
    };
    const replied = this.#next();
    this.#worker.postMessage(message);
    const reply = await replied;
    clearTimeout(timer);
    const writes = this.#gate.writes;
    if (reply.type === 'exited' || crashed) {
      return crashed
        ? {
            kind: 'crashed',
            reason: `the environment died at DynamoDB write ${(request.crashAfterWrites ?? 0) + 1}: applied, never answered`,
          }
        : { kind: 'timed-out' };
    }
    if (request.crashAfterWrites !== undefined) {
      // The handler finished before its crash point: the environment dies before the response gets out.
      await this.end();
      return {
        kind: 'crashed',
        reason: `the environment died after ${writes} DynamoDB writes, response lost`,
      };
    }
    if (reply.type === 'returned') return { kind: 'returned', response: JSON.parse(reply.responseJson) };
    if (reply.type === 'threw')
      return { kind: 'threw', errorType: reply.errorType, errorMessage: reply.errorMessage };
    return { kind: 'crashed', reason: `unexpected runtime message ${reply.type}` };
  }

  async end(): Promise<void> {
    if (!this.alive) return;
    this.alive = false;
    await Promise.all([this.#worker.terminate(), this.#gate.close()]);
  }

  #next(): Promise<RuntimeReply | { type: 'exited' }> {
    if (!this.alive) return Promise.resolve({ type: 'exited' });
    return new Promise((resolve) => {
      this.#pending = (reply) => {
        this.#pending = undefined;
        resolve(reply);
      };
    });
  }
}

function forwardLines(stream: NodeJS.ReadableStream, onLine: ((line: string) => void) | undefined): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) onLine?.(line);
  });
  stream.on('end', () => {
    if (buffered) onLine?.(buffered);
  });
}
