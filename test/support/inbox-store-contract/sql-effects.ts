/**
 * The contract's effect steps as a SQL effect on a business table `app_items (pk text primary key,
 * attributes jsonb)` in the connection's search_path: statements in order in the inbox transaction. A
 * business rule is the effect's own check, refused by throwing EffectRejectedError (`effect-rejected`); an
 * `insert-unique` has no check of its own, so the primary key refuses a second item (SQLSTATE 23505,
 * `rejected` as postgres-rejected).
 */
import { expect } from 'vitest';
import type { SqlTransaction } from '../../../lambdas/core/effect.js';
import { EffectRejectedError } from '../../../lambdas/core/errors.js';
import { POSTGRES_REJECTED } from '../../../lambdas/postgres/member-transaction.js';
import type { EffectStep, EffectVocabulary } from './harness.js';

export const APP_ITEMS_TABLE_SQL = `create table app_items (
  pk          text   primary key,
  attributes  jsonb  not null default '{}'
)`;

/** The quarantine reason the effect's own rules refuse with. */
export const BUSINESS_RULE_REASON = 'business-rule-rejected';

const UPSERT = `insert into app_items (pk, attributes) values ($1, $2)
  on conflict (pk) do update set attributes = excluded.attributes`;

async function runStep(sql: SqlTransaction, step: EffectStep, index: number): Promise<void> {
  switch (step.op) {
    case 'put':
      await sql.query(UPSERT, [step.pk, step.attributes]);
      return;
    case 'put-if-absent': {
      const inserted = await sql.query(
        'insert into app_items (pk, attributes) values ($1, $2) on conflict (pk) do nothing',
        [step.pk, step.attributes],
      );
      if (inserted.rowCount === 0) refuse(index, `${step.pk} exists already`);
      return;
    }
    case 'require': {
      const found = await sql.query('select 1 from app_items where pk = $1', [step.pk]);
      if (found.rows.length === 0) refuse(index, `${step.pk} does not exist`);
      return;
    }
    case 'delete':
      await sql.query('delete from app_items where pk = $1', [step.pk]);
      return;
    case 'insert-unique':
      await sql.query('insert into app_items (pk, attributes) values ($1, $2)', [step.pk, step.attributes]);
      return;
  }
}

function refuse(stepIndex: number, why: string): never {
  throw new EffectRejectedError(BUSINESS_RULE_REASON, `step ${stepIndex}: ${why}`);
}

export function sqlEffects(): EffectVocabulary {
  return {
    // No steps, no effect: the inbox row alone, as a DynamoDB plan with no writes.
    effectOf: (steps) =>
      steps.length === 0
        ? { writes: [] }
        : {
            writes: [],
            sql: async (sql) => {
              for (const [index, step] of steps.entries()) await runStep(sql, step, index);
            },
          },
    businessRejection: (stepIndex) => ({
      kind: 'effect-rejected',
      reason: BUSINESS_RULE_REASON,
      message: expect.stringMatching(new RegExp(`^step ${stepIndex}: `)),
    }),
    constraintRejection: {
      kind: 'rejected',
      reason: POSTGRES_REJECTED,
      message: expect.stringMatching(/^SQLSTATE 23505: .*; constraint app_items_pkey$/),
    },
  };
}

/** An item as the steps left it: `{ pk, ...attributes }`. */
export async function readAppItem(
  pool: { query(text: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }> },
  pk: string,
): Promise<Record<string, unknown> | undefined> {
  const { rows } = await pool.query('select pk, attributes from app_items where pk = $1', [pk]);
  const row = rows[0];
  return row === undefined ? undefined : { pk: row.pk, ...(row.attributes as Record<string, unknown>) };
}
