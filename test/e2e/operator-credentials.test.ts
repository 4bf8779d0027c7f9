/**
 * `msk-inbox --endpoint` signs as the SDK's default chain says, as every AWS tool does: DynamoDB Local keeps
 * tables per access key id and region (this run's instance has no -sharedDb), so a table made under the
 * caller's own key is found only under that key. With no credentials configured anywhere, the tool falls
 * back to the fixed local pair and us-east-1, what `npm start` makes its tables under.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { decodeEvent } from '../../lambdas/core/decode-event.js';
import { DynamoDbInboxStore } from '../../lambdas/core/dynamodb-inbox-store.js';
import { createInboxTable } from '../../local/dynamodb-local/tables.js';
import { createTestTables } from '../support/dynamodb.js';
import { kafkaEvent } from '../support/kafka-events.js';
import { expectOneLine, mskInbox } from '../support/msk-inbox-cli.js';

const CONSUMER = 'orders';
const CALLER = { accessKeyId: 'AKIDCALLER', secretAccessKey: 'caller-secret', region: 'eu-west-1' };

let home: string;
let callerTable: string;
let localPairTable: string;

/** Nothing configured: no variables, no shared files, an empty home, no metadata service. */
const bareShell = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: home,
  AWS_CONFIG_FILE: join(home, 'no-config'),
  AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials'),
  AWS_EC2_METADATA_DISABLED: 'true',
});

const list = (table: string, env: NodeJS.ProcessEnv, more: readonly string[] = []) =>
  mskInbox(
    [
      'quarantine',
      'list',
      '--endpoint',
      inject('dynamoDbEndpoint'),
      '--table',
      table,
      '--consumer',
      CONSUMER,
      ...more,
    ],
    env,
  );

/** One quarantine row, as the consumer writes it, at `offset`. */
async function quarantineOne(client: DynamoDBClient, tableName: string, offset: number): Promise<void> {
  const store = new DynamoDbInboxStore({
    client: DynamoDBDocumentClient.from(client),
    tableName,
    consumer: CONSUMER,
    ttlSeconds: 604_800,
    clock: { nowMs: () => Date.now() },
  });
  const record = decodeEvent(kafkaEvent([{ offset, value: { amount: 5 }, timestamp: Date.now() }]))[0]
    ?.records[0];
  if (record === undefined) throw new Error('no record');
  await store.quarantine({
    coordinates: `orders-0@${offset}`,
    reason: 'missing-event-id',
    message: 'no id',
    record: record.raw,
  });
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'msk-inbox-home-'));
  const caller = new DynamoDBClient({
    endpoint: inject('dynamoDbEndpoint'),
    region: CALLER.region,
    credentials: { accessKeyId: CALLER.accessKeyId, secretAccessKey: CALLER.secretAccessKey },
  });
  callerTable = `caller-inbox-${process.pid}`;
  await createInboxTable(caller, callerTable);
  await quarantineOne(caller, callerTable, 11);
  const local = await createTestTables();
  localPairTable = local.inboxTableName;
  await quarantineOne(local.client, localPairTable, 12);
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('msk-inbox --endpoint signs as the SDK says', () => {
  it("finds a table made under the caller's own key and region (AWS_ACCESS_KEY_ID, AWS_REGION)", async () => {
    const result = await list(callerTable, {
      ...bareShell(),
      AWS_ACCESS_KEY_ID: CALLER.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CALLER.secretAccessKey,
      AWS_REGION: CALLER.region,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^orders-0@11\s+missing-event-id\s+/m);
    expect(result.code).toBe(0);
  });

  it('with no credentials configured at all, finds the table made under the local pair', async () => {
    const result = await list(localPairTable, bareShell());
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^orders-0@12\s+missing-event-id\s+/m);
    expect(result.code).toBe(0);
  });

  it("does not find the caller's table under the local pair: the key is what namespaces it", async () => {
    expectOneLine(
      await list(callerTable, bareShell()),
      /^msk-inbox: table caller-inbox-\d+ \(or its quarantine index\) not found at http:\/\/\S+: check --table, --region or --endpoint$/,
    );
  });

  it('a named profile that is not there is the caller to fix, not a reason for the local pair', async () => {
    expectOneLine(
      await list(localPairTable, bareShell(), ['--profile', 'nope']),
      'msk-inbox: no AWS credentials found: set AWS_PROFILE (or --profile), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    );
  });
});
