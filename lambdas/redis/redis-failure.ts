/**
 * What a failed Redis command means for the record (docs/redis.md): the server refusing who we are or
 * what we may do (NOAUTH, WRONGPASS, NOPERM) or a script it cannot run (NOSCRIPT after a restart is the
 * client's to resend; ERR in a script is the code's) is systemic, the same for every record; anything else
 * (a connection lost, a timeout, LOADING, READONLY during a failover, CLUSTERDOWN, TRYAGAIN) may pass, so
 * the record is reported and retried.
 */
import { InboxStoreError } from '../core/errors.js';

const SYSTEMIC_PREFIXES = ['NOAUTH', 'WRONGPASS', 'NOPERM', 'ERR Error running script', 'ERR user_script'];

export function redisStoreError(operation: string, error: unknown): InboxStoreError {
  const message = error instanceof Error ? error.message : String(error);
  const systemic = SYSTEMIC_PREFIXES.some((prefix) => message.startsWith(prefix));
  return new InboxStoreError(`Redis ${operation} failed: ${message}`, {
    cause: error,
    failureClass: systemic ? 'systemic' : 'transient',
  });
}
