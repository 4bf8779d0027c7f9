/**
 * What a failed Redis command means for the record (docs/redis.md): the server refusing who we are or
 * what we may do (NOAUTH, WRONGPASS, NOPERM), a script it cannot run (NOSCRIPT after a restart is the
 * client's to resend; ERR in a script is the code's), or a login that cannot be made from the settings (a
 * secret not in the shape asked for) is systemic, the same for every record; anything else (a connection
 * lost, a timeout, LOADING, READONLY during a failover, CLUSTERDOWN, TRYAGAIN) may pass, so the record is
 * reported and retried.
 */
import { ConfigError, InboxStoreError } from '../core/errors.js';

/** The server refusing the login itself: a new connection needs a new one (redis-connection.ts). */
const LOGIN_REFUSALS = ['NOAUTH', 'WRONGPASS'];
const SYSTEMIC_PREFIXES = [...LOGIN_REFUSALS, 'NOPERM', 'ERR Error running script', 'ERR user_script'];

export function isLoginRefusal(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return LOGIN_REFUSALS.some((prefix) => message.startsWith(prefix));
}

export function redisStoreError(operation: string, error: unknown): InboxStoreError {
  const message = error instanceof Error ? error.message : String(error);
  const systemic =
    error instanceof ConfigError || SYSTEMIC_PREFIXES.some((prefix) => message.startsWith(prefix));
  return new InboxStoreError(`Redis ${operation} failed: ${message}`, {
    cause: error,
    failureClass: systemic ? 'systemic' : 'transient',
  });
}
