/**
 * One taxonomy of Postgres failures, by SQLSTATE (https://www.postgresql.org/docs/current/errcodes-appendix.html),
 * decided here and nowhere else, in the classes of the DynamoDB store (lambdas/core/store-failure.ts):
 * - permanent for the record: the effect's statement was refused for what the record carried, a data
 *   exception (class 22) or an integrity constraint violation (class 23), or a rule raised in PL/pgSQL
 *   (P0001). No retry can fix it: quarantined, under the refusal streak's guard against doing so en masse.
 * - transient: serialization failure, deadlock (class 40), lock not available, a statement cancelled by
 *   its timeout (57014), too many connections, the server shutting down or restarting (class 57, 53):
 *   reported, retried.
 * - systemic: the connection was lost or refused (class 08, or a socket error with no SQLSTATE), a
 *   missing table or column, denied permission, bad credentials (classes 42, 28, 3D, 3F): every record
 *   would fail alike; reported, never quarantined en masse.
 */
import type { FailureClass } from '../core/store-failure.js';

const PERMANENT_CLASSES = new Set(['22', '23']);
const PERMANENT_CODES = new Set(['P0001']);
const TRANSIENT_CLASSES = new Set(['40', '53', '57']);
const TRANSIENT_CODES = new Set(['55P03', '55006']);

/** The SQLSTATE of an error the `pg` driver raised, when the server sent one. */
export function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

export function classifySqlFailure(error: unknown): FailureClass {
  const state = sqlStateOf(error);
  // No SQLSTATE: the driver's own error (a socket closed, a refused connection, its query timeout).
  if (state === undefined) return queryTimedOut(error) ? 'transient' : 'systemic';
  if (PERMANENT_CODES.has(state) || PERMANENT_CLASSES.has(state.slice(0, 2))) return 'permanent';
  if (TRANSIENT_CODES.has(state) || TRANSIENT_CLASSES.has(state.slice(0, 2))) return 'transient';
  return 'systemic';
}

/**
 * The driver's client-side timeouts: a statement that took too long (`query_timeout`, as 57014 says), or a
 * wait for a pooled connection that did not come (every connection busy with other records).
 */
function queryTimedOut(error: unknown): boolean {
  return (
    error instanceof Error &&
    /query read timeout|timeout exceeded when trying to connect/i.test(error.message)
  );
}

/**
 * An error as one line for a quarantine row or a log: its SQLSTATE, message and constraint. Never the
 * server's detail, which quotes the row's values ("Failing row contains ..."): payload stays out of logs.
 */
export function sqlErrorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const state = sqlStateOf(error);
  const constraint = (error as { constraint?: unknown }).constraint;
  return [
    state ? `SQLSTATE ${state}: ${error.message}` : `${error.name}: ${error.message}`,
    typeof constraint === 'string' ? `constraint ${constraint}` : undefined,
  ]
    .filter(Boolean)
    .join('; ');
}
