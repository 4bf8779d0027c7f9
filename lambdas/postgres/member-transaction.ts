/**
 * One transaction for several records, a savepoint each (docs/postgres.md#group-commit): a record whose
 * row is taken, or whose SQL fails, rolls back to its savepoint and the others commit. What the team's SQL
 * raised is judged by its SQLSTATE (sqlstate.ts); an EffectRejectedError is the team's own refusal. A
 * record's events are written after its SQL, in its savepoint (docs/postgres.md#outbox).
 */
import type { PoolClient } from 'pg';
import type { SqlEffect, SqlTransaction } from '../core/effect.js';
import { EffectRejectedError } from '../core/errors.js';
import { type CommitResult, stopsGroup } from '../core/inbox-store.js';
import { errorMessage } from '../core/record-outcome.js';
import type { TakeResult } from './inbox-tables.js';
import { classifySqlFailure, sqlErrorText, sqlStateOf } from './sqlstate.js';

/** One record of the transaction. */
export interface MemberWork {
  /** Inserts (or takes over) its inbox row. */
  readonly take: (client: PoolClient, nowMs: number) => Promise<TakeResult>;
  readonly sql: SqlEffect | undefined;
  /** An answer known before anything is sent (a plan this store cannot run). */
  readonly refused: CommitResult | undefined;
  /** The record's events, when its plan emits (outbox/outbox-writes.ts). */
  readonly outbox?: MemberOutbox;
}

/** A record's events: written after its SQL, in its savepoint, so a record rolled back takes them along. */
export interface MemberOutbox {
  readonly write: (client: PoolClient, nowMs: number) => Promise<void>;
  /** Sent once per transaction in which a committed record emitted (Postgres delivers it at COMMIT); none with POSTGRES_OUTBOX_NOTIFY=off. */
  readonly notify?: string;
}

/** Statements that would end or split the store's transaction (the savepoints are the store's). */
const TRANSACTION_CONTROL =
  /^\s*(BEGIN|START\s+TRANSACTION|COMMIT|END|ROLLBACK|ABORT|SAVEPOINT|RELEASE|PREPARE\s+TRANSACTION)\b/i;

/** The quarantine reason of a record whose SQL Postgres refused for its content (class 22, 23, P0001). */
export const POSTGRES_REJECTED = 'postgres-rejected';

/**
 * Runs the members in one transaction. Throws when its fate is unknown: a statement of the store's own
 * failed (the connection, a missing inbox table), or the COMMIT got no answer. `one-by-one`: the COMMIT was
 * refused for a reason no member can be named for (a deferred constraint), with several members in it;
 * nothing was committed, and each must go again alone.
 */
export async function runMembers(
  client: PoolClient,
  members: readonly MemberWork[],
  nowMs: () => number,
  mayContinue: () => boolean = () => true,
): Promise<CommitResult[] | 'one-by-one'> {
  // Known before anything is sent: no transaction is opened for it.
  const first = members[0];
  if (first?.refused)
    return [first.refused, ...members.slice(1).map((): CommitResult => ({ kind: 'not-sent' }))];
  const grouped = members.length > 1;
  const results: CommitResult[] = [];
  await client.query('BEGIN');
  try {
    for (const [index, member] of members.entries()) {
      if (member.refused) {
        results.push(member.refused);
        break;
      }
      // Each member runs the team's SQL: within the deadline margin, the rest wait for the next delivery.
      if (index > 0 && !mayContinue()) {
        while (results.length < members.length) results.push({ kind: 'not-sent', reason: 'deadline' });
        break;
      }
      if (grouped) await client.query(`SAVEPOINT m${index}`);
      const taken = await member.take(client, nowMs());
      if (taken.kind === 'conflict') {
        results.push(taken.conflict);
        if (stopsGroup(taken.conflict)) break;
        continue;
      }
      const failure =
        (await runEffect(client, member.sql)) ?? (await runOutbox(client, member.outbox, nowMs()));
      if (failure === undefined) {
        results.push({ kind: 'committed' });
        continue;
      }
      // This record alone is undone; alone in its transaction, the whole transaction is.
      await client.query(grouped ? `ROLLBACK TO SAVEPOINT m${index}` : 'ROLLBACK');
      results.push(failure);
      if (!grouped) return results;
      if (stopsGroup(failure)) break;
    }
    // Once, for the records that emitted and stay: a listening relay wakes at COMMIT (docs/postgres.md#outbox).
    const notify = members.find((member, index) => member.outbox && results[index]?.kind === 'committed')
      ?.outbox?.notify;
    if (notify !== undefined) await client.query(notify);
  } catch (error) {
    // A connection the driver gave up on (no SQLSTATE) is destroyed by the caller, which rolls back on the
    // server: a ROLLBACK sent on it would only wait behind the statement that hung.
    if (sqlStateOf(error) !== undefined) await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  while (results.length < members.length) results.push({ kind: 'not-sent' });
  if (!results.some((result) => result.kind === 'committed')) {
    await client.query('ROLLBACK');
    return results;
  }
  return commitAnswer(client, results);
}

/**
 * COMMIT, and what its refusal means for the members it would have committed: a serialization failure is
 * transient for each; a deferred constraint cannot be pinned on one member, so with several each goes
 * again alone (`one-by-one`), and alone it is refused. No answer at all: thrown, as the fate is unknown.
 * A COMMIT that answers `ROLLBACK` (the transaction was aborted by a statement the store did not see fail:
 * a query the effect did not await) committed nothing: transient for each.
 */
async function commitAnswer(
  client: PoolClient,
  results: CommitResult[],
): Promise<CommitResult[] | 'one-by-one'> {
  const committed = results.filter((result) => result.kind === 'committed').length;
  let command: string;
  try {
    command = (await client.query('COMMIT')).command;
  } catch (error) {
    if (sqlStateOf(error) === undefined) throw error;
    const failureClass = classifySqlFailure(error);
    if (failureClass === 'systemic') throw error;
    if (failureClass === 'permanent' && committed > 1) return 'one-by-one';
    const answer: CommitResult =
      failureClass === 'permanent'
        ? { kind: 'rejected', reason: POSTGRES_REJECTED, message: sqlErrorText(error) }
        : { kind: 'transient', message: `COMMIT refused: ${sqlErrorText(error)}` };
    return results.map((result) => (result.kind === 'committed' ? answer : result));
  }
  if (command === 'COMMIT') return results;
  const rolledBack: CommitResult = {
    kind: 'transient',
    message: `COMMIT answered ${command}: a statement failed unseen (an effect query not awaited?), nothing committed`,
  };
  return results.map((result) => (result.kind === 'committed' ? rolledBack : result));
}

/**
 * Runs a record's SQL through a client that remembers the first statement it saw fail: an effect that
 * catches a failed statement and goes on has still aborted its transaction. Undefined when all went well.
 */
async function runEffect(client: PoolClient, sql: SqlEffect | undefined): Promise<CommitResult | undefined> {
  if (sql === undefined) return undefined;
  let failedStatement: unknown;
  const transaction: SqlTransaction = {
    async query<Row extends Record<string, unknown>>(text: string, values?: readonly unknown[]) {
      if (TRANSACTION_CONTROL.test(text)) {
        throw new Error(`${text.trim().split(/\s+/)[0]} inside a sql effect: the store owns the transaction`);
      }
      try {
        const result = await client.query<Row>(text, values as unknown[] | undefined);
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      } catch (error) {
        failedStatement ??= error;
        throw error;
      }
    },
  };
  let thrown: unknown;
  let threw = false;
  try {
    await sql(transaction);
  } catch (error) {
    thrown = error;
    threw = true;
  }
  // The team's own refusal wins, even over a statement it caught and judged.
  if (threw && EffectRejectedError.isRejection(thrown)) {
    return { kind: 'effect-rejected', reason: thrown.reason, message: thrown.message };
  }
  if (failedStatement !== undefined) return statementFailure(failedStatement);
  if (threw) return { kind: 'effect-failed', reason: 'effect-error', message: errorMessage(thrown) };
  return undefined;
}

/**
 * Writes a record's events after its SQL. What Postgres refuses is judged as the team's statements are
 * (sqlstate.ts): a missing outbox table (migration 3 not applied) is systemic, a lock wait cut short
 * transient. Undefined when all went well.
 */
async function runOutbox(
  client: PoolClient,
  outbox: MemberOutbox | undefined,
  nowMs: number,
): Promise<CommitResult | undefined> {
  if (outbox === undefined) return undefined;
  try {
    await outbox.write(client, nowMs);
    return undefined;
  } catch (error) {
    return statementFailure(error, 'outbox: ');
  }
}

function statementFailure(error: unknown, what = ''): CommitResult {
  // No SQLSTATE: the connection failed under the statement (or the driver's timeout left it mid-query):
  // the transaction's fate is the store's, and the connection is not reused.
  if (sqlStateOf(error) === undefined) throw error;
  const message = what + sqlErrorText(error);
  switch (classifySqlFailure(error)) {
    case 'permanent':
      return { kind: 'rejected', reason: POSTGRES_REJECTED, message };
    case 'transient':
      return { kind: 'transient', message };
    case 'systemic':
      return { kind: 'effect-failed', reason: 'systemic-store-error', message };
  }
}
