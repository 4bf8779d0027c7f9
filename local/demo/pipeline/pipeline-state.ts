/**
 * What the pipeline left in DynamoDB once it stopped: the payment consumer's ledgers and what remains in
 * the outbox table (queue rows still holding events, quarantine rows).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { OUTBOX_ATTRIBUTES } from '../../../lambdas/core/outbox-rows.js';
import { scanAll } from '../../dynamodb-local/tables.js';
import type { LedgerEntry } from './pipeline-verify.js';

export interface PipelineState {
  /** Account id → its ledger item. */
  readonly ledger: ReadonlyMap<string, LedgerEntry>;
  readonly outboxQueueRows: number;
  readonly outboxQuarantineRows: number;
}

const LEDGER_PREFIX = 'ledger#';

export async function readPipelineState(
  client: DynamoDBClient,
  tables: { readonly ledger: string; readonly outbox: string },
): Promise<PipelineState> {
  const [ledgerItems, outboxItems] = await Promise.all([
    scan(client, tables.ledger),
    scan(client, tables.outbox),
  ]);
  const ledger = new Map<string, LedgerEntry>();
  for (const item of ledgerItems) {
    const pk = String(item.pk);
    ledger.set(pk.startsWith(LEDGER_PREFIX) ? pk.slice(LEDGER_PREFIX.length) : pk, {
      applied: (item.applied as string[] | undefined) ?? [],
      captured: Number(item.captured ?? 0),
    });
  }
  const kinds = outboxItems.map((item) => String(item[OUTBOX_ATTRIBUTES.pk]).split('#')[0]);
  return {
    ledger,
    outboxQueueRows: kinds.filter((kind) => kind === 'queue').length,
    outboxQuarantineRows: kinds.filter((kind) => kind === 'quarantine').length,
  };
}

async function scan(client: DynamoDBClient, tableName: string): Promise<Record<string, unknown>[]> {
  return (await scanAll(client, tableName)).map((item) => unmarshall(item));
}
