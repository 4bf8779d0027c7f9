/**
 * The demo's proof: the app table holds exactly what applying each unique valid event once gives, every
 * poison record has its quarantine row, and every partition is committed to its end.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateQuery, paginateScan } from '@aws-sdk/lib-dynamodb';
import { INBOX_STATUS, QUARANTINE_INDEX, quarantineRowKey } from '../../lambdas/core/inbox-rows.js';
import type { PartitionProgress, TopicPartition } from '../esm/record-source.js';
import { topicPartitionKey } from '../esm/record-source.js';
import type { ExpectedState } from './workload.js';

export interface VerificationInput {
  readonly client: DynamoDBClient;
  readonly appTableName: string;
  readonly inboxTableName: string;
  readonly consumerName: string;
  readonly expected: ExpectedState;
  /** Where each poison record landed. */
  readonly poison: readonly (TopicPartition & { readonly offset: number })[];
  readonly progress: readonly PartitionProgress[];
  /** Records the mapping gave up on (sent to the on-failure destination). */
  readonly destinationRecords: number;
}

export interface Verification {
  readonly ok: boolean;
  /** One line per kind of problem, with examples. */
  readonly problems: readonly string[];
  readonly accountsChecked: number;
  readonly ordersChecked: number;
  readonly completedRows: number;
  readonly quarantineRows: number;
  /** Quarantine rows by reason (the consumer's reason, e.g. `undecodable`, `invalid-event`). */
  readonly quarantineReasons: ReadonlyMap<string, number>;
}

export async function verify(input: VerificationInput): Promise<Verification> {
  const documents = DynamoDBDocumentClient.from(input.client);
  const problems: string[] = [];

  const actualBalances = new Map<string, number>();
  const actualTotals = new Map<string, number>();
  const badStatus: string[] = [];
  const strays: string[] = [];
  for await (const page of paginateScan(
    { client: documents },
    { TableName: input.appTableName, ConsistentRead: true },
  )) {
    for (const item of page.Items ?? []) {
      const pk = String(item.pk);
      if (pk.startsWith('account#')) actualBalances.set(pk, Number(item.balance));
      else if (pk.startsWith('order#')) {
        actualTotals.set(pk, Number(item.total));
        if (item.status !== 'PLACED') badStatus.push(pk);
      } else strays.push(pk);
    }
  }
  compare('account balance', input.expected.balances, actualBalances, problems);
  compare('order total', input.expected.orderTotals, actualTotals, problems);
  if (badStatus.length > 0) problems.push(`${badStatus.length} orders not PLACED, e.g. ${sample(badStatus)}`);
  if (strays.length > 0) problems.push(`${strays.length} unexpected app items, e.g. ${sample(strays)}`);

  let completedRows = 0;
  for await (const page of paginateScan(
    { client: documents },
    {
      TableName: input.inboxTableName,
      ConsistentRead: true,
      FilterExpression: '#status = :completed AND begins_with(pk, :prefix)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':completed': INBOX_STATUS.completed,
        ':prefix': `${input.consumerName}#`,
      },
      Select: 'COUNT',
    },
  )) {
    completedRows += page.Count ?? 0;
  }
  if (completedRows !== input.expected.uniqueValidEvents) {
    problems.push(
      `${completedRows} COMPLETED inbox rows, expected one per unique valid event: ${input.expected.uniqueValidEvents}`,
    );
  }

  const quarantined = new Set<string>();
  const quarantineReasons = new Map<string, number>();
  for await (const page of paginateQuery(
    { client: documents },
    {
      TableName: input.inboxTableName,
      IndexName: QUARANTINE_INDEX.name,
      KeyConditionExpression: '#consumer = :consumer',
      ExpressionAttributeNames: { '#consumer': QUARANTINE_INDEX.partitionKey },
      ExpressionAttributeValues: { ':consumer': input.consumerName },
    },
  )) {
    for (const item of page.Items ?? []) {
      if (item.status !== INBOX_STATUS.quarantined) continue;
      quarantined.add(String(item.pk));
      const reason = String(item.reason);
      quarantineReasons.set(reason, (quarantineReasons.get(reason) ?? 0) + 1);
    }
  }
  const expectedQuarantine = new Set(
    input.poison.map((p) => quarantineRowKey(input.consumerName, `${topicPartitionKey(p)}@${p.offset}`)),
  );
  const missing = [...expectedQuarantine].filter((pk) => !quarantined.has(pk));
  const unexpected = [...quarantined].filter((pk) => !expectedQuarantine.has(pk));
  if (missing.length > 0)
    problems.push(`${missing.length} poison records not quarantined, e.g. ${sample(missing)}`);
  if (unexpected.length > 0)
    problems.push(`${unexpected.length} valid records quarantined, e.g. ${sample(unexpected)}`);

  const behind = input.progress.filter((p) => p.committedOffset !== p.endOffset);
  if (behind.length > 0) {
    const lag = behind.map((p) => `${topicPartitionKey(p)} committed ${p.committedOffset} of ${p.endOffset}`);
    problems.push(`uncommitted records: ${lag.join(', ')}`);
  }
  if (input.destinationRecords > 0) {
    problems.push(`${input.destinationRecords} records went to the on-failure destination`);
  }

  return {
    ok: problems.length === 0,
    problems,
    accountsChecked: input.expected.balances.size,
    ordersChecked: input.expected.orderTotals.size,
    completedRows,
    quarantineRows: quarantined.size,
    quarantineReasons,
  };
}

function compare(
  what: string,
  expected: ReadonlyMap<string, number>,
  actual: ReadonlyMap<string, number>,
  problems: string[],
): void {
  const wrong: string[] = [];
  for (const [key, value] of expected) {
    const found = actual.get(key);
    if (found !== value) wrong.push(`${key} ${found ?? 'missing'} != ${value}`);
  }
  for (const key of actual.keys()) if (!expected.has(key)) wrong.push(`${key} not expected`);
  if (wrong.length > 0) problems.push(`${wrong.length} wrong ${what}s, e.g. ${sample(wrong)}`);
}

function sample(items: readonly string[]): string {
  return items.slice(0, 3).join('; ');
}
