/**
 * The real `msk-inbox` command (bin/msk-inbox.mjs, as `npx msk-inbox` runs it in this checkout), spawned:
 * what a person sees on a mistake is one line on stderr naming the fix, with exit code 2, and stdout
 * carries only the output. The commands' behaviour is tested in test/integration/operator/.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { decodeEvent } from '../../lambdas/core/decode-event.js';
import { DynamoDbInboxStore } from '../../lambdas/core/dynamodb-inbox-store.js';
import { startInvokeApiServer } from '../../local/lambda-runtime/invoke-api-server.js';
import { createTestTables, type TestTables } from '../support/dynamodb.js';
import { kafkaEvent } from '../support/kafka-events.js';
import { expectOneLine, mskInbox } from '../support/msk-inbox-cli.js';

const CONSUMER = 'orders';

let tables: TestTables;
let local: string[];

beforeAll(async () => {
  tables = await createTestTables();
  local = [
    '--endpoint',
    inject('dynamoDbEndpoint'),
    '--table',
    tables.inboxTableName,
    '--consumer',
    CONSUMER,
  ];
  // One row, as the consumer writes it.
  const store = new DynamoDbInboxStore({
    client: DynamoDBDocumentClient.from(tables.client),
    tableName: tables.inboxTableName,
    consumer: CONSUMER,
    ttlSeconds: 604_800,
    clock: { nowMs: () => Date.now() },
  });
  // Stamped now: a record older than the dedup window is listed with a mark (docs/operate.md#list-and-show).
  const record = decodeEvent(kafkaEvent([{ offset: 7, value: { amount: 5 }, timestamp: Date.now() }]))[0]
    ?.records[0];
  if (record === undefined) throw new Error('no record');
  await store.quarantine({
    coordinates: 'orders-0@7',
    reason: 'missing-event-id',
    message: 'no id',
    record: record.raw,
  });
});

describe('msk-inbox, spawned', () => {
  it('lists the quarantined rows as a table, and as JSON', async () => {
    const table = await mskInbox(['quarantine', 'list', ...local]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^orders-0@7\s+missing-event-id\s+/m);
    const json = await mskInbox(['quarantine', 'list', '--json', ...local]);
    expect(JSON.parse(json.stdout)).toMatchObject({ total: 1, countsByReason: { 'missing-event-id': 1 } });
  });

  it('answers --help on every command', async () => {
    for (const command of [
      [],
      ['quarantine'],
      ...['list', 'show', 'replay', 'discard'].map((c) => ['quarantine', c]),
    ]) {
      const help = await mskInbox([...command, '--help']);
      expect({ command, code: help.code }).toEqual({ command, code: 0 });
      expect(help.stdout).toMatch(/^Usage: msk-inbox/);
    }
  });

  it('names a bad id in one line', async () => {
    expectOneLine(
      await mskInbox(['quarantine', 'show', 'orders-0@8', ...local]),
      /^msk-inbox: no quarantine row orders-0@8 for consumer orders in table inbox-\w+: `msk-inbox quarantine list` prints the ids$/,
    );
  });

  it('names a missing table in one line', async () => {
    expectOneLine(
      await mskInbox([
        'quarantine',
        'list',
        '--endpoint',
        inject('dynamoDbEndpoint'),
        '--table',
        'nope',
        '--consumer',
        CONSUMER,
      ]),
      /^msk-inbox: table nope \(or its quarantine index\) not found at http:\/\/\S+: check --table, --region or --endpoint$/,
    );
  });

  it('says there are no credentials in one line', async () => {
    expectOneLine(
      await mskInbox([
        'quarantine',
        'list',
        '--table',
        'inbox',
        '--consumer',
        CONSUMER,
        '--region',
        'us-east-1',
      ]),
      'msk-inbox: no AWS credentials found: set AWS_PROFILE (or --profile), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    );
  });

  it('says nothing answers at an endpoint in one line', async () => {
    expectOneLine(
      await mskInbox([
        'quarantine',
        'list',
        '--endpoint',
        'http://127.0.0.1:9',
        '--table',
        't',
        '--consumer',
        CONSUMER,
      ]),
      /^msk-inbox: nothing answers at http:\/\/127\.0\.0\.1:9: is DynamoDB Local running\?/,
    );
  });

  it('refuses mistakes in one line: an unknown flag, a missing consumer, discard without a terminal or --yes', async () => {
    expectOneLine(await mskInbox(['quarantine', 'list', '--nope']), /^msk-inbox: Unknown option '--nope'/);
    expectOneLine(
      await mskInbox(['quarantine', 'list', '--table', 't']),
      'msk-inbox: which consumer? pass --consumer NAME (or set CONSUMER_NAME)',
    );
    expectOneLine(
      await mskInbox(['quarantine', 'discard', 'orders-0@7', ...local]),
      'msk-inbox: discarding 1 record(s) needs a yes: run it in a terminal, or pass --yes',
    );
    expectOneLine(
      await mskInbox(['quarantine', 'replay', 'orders-0@7', ...local]),
      /^msk-inbox: what should run the records\? pass --function NAME \(the deployed function\), --stack NAME or --handler FILE$/,
    );
  });

  it('replay --function: a function that is not there, or no credentials for Lambda, is one line (exit 2)', async () => {
    const invokeApi = await startInvokeApiServer({ functions: new Map() });
    try {
      expectOneLine(
        await mskInbox([
          'quarantine',
          'replay',
          'orders-0@7',
          '--function',
          'orders',
          '--lambda-endpoint',
          invokeApi.endpoint,
          ...local,
        ]),
        `msk-inbox: function orders not found at ${invokeApi.endpoint}: check --function (or --stack), --region or --lambda-endpoint`,
      );
    } finally {
      await invokeApi.close();
    }
    expectOneLine(
      await mskInbox([
        'quarantine',
        'replay',
        'orders-0@7',
        '--function',
        'orders',
        '--region',
        'us-east-1',
        ...local,
      ]),
      'msk-inbox: no AWS credentials found: set AWS_PROFILE (or --profile), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    );
  });

  it('--stack without credentials is one line (exit 2)', async () => {
    expectOneLine(
      await mskInbox(['quarantine', 'list', '--stack', 'Orders', '--region', 'us-east-1']),
      'msk-inbox: no AWS credentials found: set AWS_PROFILE (or --profile), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    );
  });
});
