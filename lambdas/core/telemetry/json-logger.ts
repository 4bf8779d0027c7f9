/**
 * The consumer's logs: one JSON object per line, with the fields and levels Powertools Logger writes
 * (docs/design.md#logs-and-metrics), without the 18 KB of its code (and its commons) that every cold start
 * compiled. A team that wants Powertools passes its own Logger: it satisfies ConsumerLogger as it is.
 */
import type { Context } from 'aws-lambda';

/** Attributes merged into a log line beside its message. */
export type LogAttributes = Readonly<Record<string, unknown>>;

/** What the consumer asks of a logger: Powertools' Logger satisfies it, so does JsonLogger. */
export interface ConsumerLogger {
  /** A batch's summary (`batch processed`), a scheduled run's deletions. */
  info(message: string, ...attributes: LogAttributes[]): void;
  /** A record quarantined or in flight, with its coordinates and reason. */
  warn(message: string, ...attributes: LogAttributes[]): void;
  /** An Error is logged under `error`: name, message, stack and cause. */
  error(message: string, ...attributesOrError: [Error] | LogAttributes[]): void;
  /** Called with each invocation's context, before the batch. */
  addContext?(context: Context): void;
}

/** Powertools' thresholds: a line is written when its level's number is at least the logger's. */
const THRESHOLDS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type LogLevel = keyof typeof THRESHOLDS;

/** Fields of the line itself: an attribute of the same name is dropped, as Powertools drops it. */
const RESERVED = new Set(['level', 'message', 'sampling_rate', 'service', 'timestamp']);

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The level as Powertools picks it: Lambda's own (advanced logging controls, AWS_LAMBDA_LOG_LEVEL) wins,
 * then POWERTOOLS_LOG_LEVEL or LOG_LEVEL, else INFO.
 */
function logLevelOf(env: Environment): LogLevel {
  const lambdaLevel = env.AWS_LAMBDA_LOG_LEVEL?.trim().toUpperCase();
  const candidates = [
    lambdaLevel === 'FATAL' ? 'CRITICAL' : lambdaLevel,
    env.POWERTOOLS_LOG_LEVEL || env.LOG_LEVEL,
  ];
  const level = candidates
    .map((c) => c?.trim().toUpperCase())
    .find((c) => c !== undefined && c in THRESHOLDS);
  return (level as LogLevel | undefined) ?? 'INFO';
}

export class JsonLogger implements ConsumerLogger {
  readonly #service: string;
  readonly #threshold: number;
  #context: LogAttributes = {};
  #coldStart: boolean;

  /** `env`: the function's variables, read here once (the level, the initialization type). */
  constructor(options: { readonly serviceName: string; readonly env: Environment }) {
    this.#service = options.serviceName;
    this.#threshold = THRESHOLDS[logLevelOf(options.env)];
    // Powertools' rule: only an on-demand environment's first invocation is a cold start.
    this.#coldStart = options.env.AWS_LAMBDA_INITIALIZATION_TYPE === 'on-demand';
  }

  addContext(context: Context): void {
    this.#context = {
      cold_start: this.#coldStart,
      function_arn: context.invokedFunctionArn,
      function_memory_size: context.memoryLimitInMB,
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
    };
    this.#coldStart = false;
  }

  info(message: string, ...attributes: LogAttributes[]): void {
    this.#write('INFO', message, attributes);
  }

  warn(message: string, ...attributes: LogAttributes[]): void {
    this.#write('WARN', message, attributes);
  }

  error(message: string, ...attributesOrError: [Error] | LogAttributes[]): void {
    this.#write('ERROR', message, attributesOrError);
  }

  #write(level: LogLevel, message: string, extra: readonly unknown[]): void {
    if (THRESHOLDS[level] < this.#threshold) return;
    const line: Record<string, unknown> = {
      level,
      message,
      timestamp: new Date().toISOString(),
      service: this.#service,
      ...this.#context,
      // Powertools' field: the share of invocations logged at DEBUG; this logger samples none.
      sampling_rate: 0,
      xray_trace_id: xrayTraceId(),
    };
    for (const item of extra) {
      // A thrown value need not be an Error, nor an object: anything but attributes goes under `error`.
      const attributes = isAttributes(item) ? item : { error: item };
      for (const [key, value] of Object.entries(attributes)) if (!RESERVED.has(key)) line[key] = value;
    }
    // Powertools leaves out empty fields (no context before the first invocation, no trace outside Lambda).
    for (const key of Object.keys(line))
      if (line[key] === undefined || line[key] === null || line[key] === '') delete line[key];
    // As Powertools' Console does: warnings and errors to stderr; Lambda sends both streams to the log.
    const stream = THRESHOLDS[level] >= THRESHOLDS.WARN ? process.stderr : process.stdout;
    stream.write(`${JSON.stringify(line, jsonReplacer())}\n`);
  }
}

function isAttributes(item: unknown): item is LogAttributes {
  return typeof item === 'object' && item !== null && !(item instanceof Error);
}

/**
 * The Root of Lambda's trace header (`Root=1-...;Parent=...;Sampled=1`), as Powertools reads it: Lambda
 * sets the variable anew for each invocation, so it is read at each line.
 */
function xrayTraceId(): string | undefined {
  const header = process.env._X_AMZN_TRACE_ID;
  if (!header) return undefined;
  if (!header.includes('=')) return header;
  return /(?:^|;)Root=([^;]*)/.exec(header)?.[1];
}

/** Errors as name, message, stack, cause (and their own fields); bigints as text; a cycle left out. */
function jsonReplacer(): (this: unknown, key: string, value: unknown) => unknown {
  const ancestors: unknown[] = [];
  return function replace(this: unknown, _key, value) {
    const replaced = value instanceof Error ? errorFields(value) : value;
    if (typeof replaced === 'bigint') return replaced.toString();
    if (typeof replaced === 'object' && replaced !== null) {
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(replaced)) return undefined;
      ancestors.push(replaced);
    }
    return replaced;
  };
}

function errorFields(error: Error): Record<string, unknown> {
  const { name, message, stack, cause, ...own } = error as Error & Record<string, unknown>;
  return { name, message, stack, cause: cause instanceof Error ? errorFields(cause) : cause, ...own };
}
