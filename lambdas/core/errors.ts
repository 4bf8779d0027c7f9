/** Base of every error this package throws on purpose; `cause` is kept for logs. */
export class InboxError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The invocation's envelope is unusable (not an object, no records map): the whole batch fails. */
export class InvalidEventError extends InboxError {}

/** Configuration is missing or wrong; the message names every problem at once. */
export class ConfigError extends InboxError {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.problems = problems;
  }
}

/**
 * DynamoDB could not be reached or refused the request: transient (throttling after retries, an outage, a
 * timeout) or systemic (a missing table, denied access, a request the code built wrong).
 */
export class InboxStoreError extends InboxError {
  readonly failureClass: 'transient' | 'systemic';
  constructor(message: string, options?: ErrorOptions & { failureClass?: 'transient' | 'systemic' }) {
    super(message, options);
    this.failureClass = options?.failureClass ?? 'transient';
  }
}

/**
 * A record must be redelivered but carries no usable offset, so no response can name it:
 * failing the invocation is the only way to get it retried.
 */
export class UnreportableRecordError extends InboxError {}

/** Global (Symbol.for), so every copy of this module brands its rejections alike. */
const REJECTED = Symbol.for('msk-inbox.EffectRejectedError');

/**
 * The one way to say a record can never succeed (a business rule, a downstream service refusing it for
 * good): thrown by the effect, or by a side-effect's `run` however deep in the code it calls. The record
 * is quarantined under `reason` (keep it short and fixed: it is a metric's and a row's) instead of retried.
 */
export class EffectRejectedError extends InboxError {
  readonly reason: string;
  constructor(reason: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
    Object.defineProperty(this, REJECTED, { value: true });
  }

  /**
   * Whether `error` is one, by a brand rather than `instanceof`: a bundle holding two copies of the
   * package (a team's code importing another copy than the engine's) must still quarantine, not retry
   * the record for ever and block its partition.
   */
  static isRejection(error: unknown): error is EffectRejectedError {
    return (
      typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[REJECTED] === true
    );
  }
}
