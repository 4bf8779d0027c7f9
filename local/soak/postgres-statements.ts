/**
 * The statements the Postgres store sends, told apart by their text as the server would see them, and
 * the inbox row each writes, named as the invariants name rows (lambdas/core/inbox-rows.ts). The texts are
 * lambdas/postgres/inbox-tables.ts's and member-transaction.ts's; what is none of them inside a
 * transaction is the team's SQL (the sample's order effect).
 */
import { dedupRowKey, quarantineRowKey } from '../../lambdas/core/inbox-rows.js';
import { keyOfStored } from '../../lambdas/postgres/sql-text.js';

export type Statement =
  | { readonly kind: 'begin' | 'commit' | 'rollback' | 'read' | 'expire' | 'effect' }
  | { readonly kind: 'savepoint' | 'rollback-to'; readonly name: string }
  /** The inbox row taken (inserted or taken over): COMPLETED in a transaction, or claimed under a lease. */
  | { readonly kind: 'take'; readonly pk: string; readonly token: string | undefined }
  | { readonly kind: 'complete' | 'release'; readonly pk: string; readonly token: string }
  | { readonly kind: 'quarantine'; readonly pk: string };

export type StatementKind = Statement['kind'];

/** Statements that end a transaction or mark a point in it: never faulted as a data statement. */
export const TRANSACTION_CONTROL: ReadonlySet<StatementKind> = new Set([
  'begin',
  'commit',
  'rollback',
  'savepoint',
  'rollback-to',
]);

/** Writes that land on their own, outside a transaction (side-effect mode's claims, completions, ...). */
export const AUTOCOMMIT_WRITES: ReadonlySet<StatementKind> = new Set([
  'take',
  'complete',
  'release',
  'quarantine',
  'expire',
]);

export function classifyStatement(
  text: string,
  values: readonly unknown[] | undefined,
  inboxSchema: string,
): Statement {
  // One space for any run of whitespace: the store's statements span lines.
  const sql = text.trim().replace(/\s+/g, ' ');
  const value = (index: number): string => String(values?.[index] ?? '');
  const dedupPk = () => dedupRowKey(value(0), keyOfStored(value(1)));
  const upper = sql.toUpperCase();
  if (upper === 'BEGIN') return { kind: 'begin' };
  if (upper === 'COMMIT') return { kind: 'commit' };
  if (upper === 'ROLLBACK') return { kind: 'rollback' };
  const savepoint = /^(ROLLBACK TO SAVEPOINT|SAVEPOINT) (\w+)$/i.exec(sql);
  if (savepoint) {
    const name = savepoint[2] as string;
    return savepoint[1]?.toUpperCase() === 'SAVEPOINT'
      ? { kind: 'savepoint', name }
      : { kind: 'rollback-to', name };
  }
  const inbox = `${inboxSchema}.inbox`;
  if (sql.startsWith(`INSERT INTO ${inbox} AS existing`)) {
    // $7 is the lease owner: null when the row is written COMPLETED with its effect.
    const owner = values?.[6];
    return { kind: 'take', pk: dedupPk(), token: typeof owner === 'string' ? owner : undefined };
  }
  if (sql.startsWith(`UPDATE ${inbox} `)) return { kind: 'complete', pk: dedupPk(), token: value(2) };
  if (sql.startsWith(`DELETE FROM ${inbox} WHERE consumer = $1 AND dedup_key = $2 AND lease_owner`)) {
    return { kind: 'release', pk: dedupPk(), token: value(2) };
  }
  if (sql.startsWith(`DELETE FROM ${inbox} `)) return { kind: 'expire' };
  if (sql.startsWith(`INSERT INTO ${inboxSchema}.quarantine `)) {
    return { kind: 'quarantine', pk: quarantineRowKey(value(0), keyOfStored(value(1))) };
  }
  if (/^SELECT\b/i.test(sql)) return { kind: 'read' };
  return { kind: 'effect' };
}

/**
 * The take statement without its condition (the harness's `unconditional-claim` mutation): every conflict
 * updates the row. Its parameters stay referenced, so the server still infers their types.
 */
export function unconditionalTake(text: string): string {
  return text.replace(
    /WHERE existing\.expires_at < \$10 OR \(existing\.status = \$11 AND existing\.lease_until < \$12\)/,
    'WHERE $10::bigint IS NOT NULL OR $11::text IS NOT NULL OR $12::bigint IS NOT NULL',
  );
}
