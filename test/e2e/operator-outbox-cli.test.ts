/**
 * The real `msk-inbox outbox ...` (bin/msk-inbox.mjs), spawned against DynamoDB Local: what a person sees
 * listing and republishing, and a mistake as one line on stderr with exit code 2. The commands' behaviour
 * is tested in test/integration/operator/outbox-dynamodb.test.ts.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { expectOneLine, mskInbox } from '../support/msk-inbox-cli.js';
import { emit, relay, shipped } from '../support/outbox-rows.js';
import { type RelayHarness, relayHarness, TOPIC } from '../support/relay-harness.js';

let h: RelayHarness;
let local: string[];
let poison: string;
let pending: string;

beforeAll(async () => {
  h = await relayHarness();
  local = [
    '--endpoint',
    inject('dynamoDbEndpoint'),
    '--outbox-table',
    h.bench.tableName,
    '--consumer',
    'orders',
  ];
  const ids = await emit(h, 'order-1', [shipped('customer-1', '1'), shipped('customer-1', 'poison')]);
  poison = ids[1] as string;
  await relay(h, [poison]);
  [pending] = (await emit(h, 'order-2', [shipped('customer-2', '2')])) as [string];
});

describe('msk-inbox outbox, spawned', () => {
  it('lists the unpublished events per key with the totals, and the quarantined ones', async () => {
    const list = await mskInbox(['outbox', 'list', ...local]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^CONSUMER\s+TOPIC\s+KEY\s+PENDING\s+BYTES\s+OLDEST\s+NEXT EVENT$/m);
    expect(list.stdout).toMatch(
      new RegExp(`^orders\\s+${TOPIC}\\s+"customer-2"\\s+1\\s+\\d+ B\\s+\\S+.*${pending}$`, 'm'),
    );
    expect(list.stdout).toMatch(/^1 keys, 1 events \(\d+ B\) unpublished; the oldest waited /m);
    const quarantined = await mskInbox(['outbox', 'quarantined', ...local]);
    expect(quarantined.code).toBe(0);
    expect(quarantined.stdout).toMatch(
      new RegExp(`^${poison}\\s+orders\\s+${TOPIC}\\s+"customer-1"\\s+message-too-large`, 'm'),
    );
  });

  it('republishes a quarantined event at the end of its key, and says it follows the later events', async () => {
    const republish = await mskInbox(['outbox', 'republish', poison, ...local]);
    expect({ code: republish.code, stderr: republish.stderr }).toEqual({ code: 0, stderr: '' });
    expect(republish.stdout).toBe(
      `republished ${poison} (consumer orders, ${TOPIC} key "customer-1"): appended at the end of its key's queue, behind 0 pending events; it now follows the key's later events, not its original place\n`,
    );
    expect((await mskInbox(['outbox', 'quarantined', ...local])).stdout).toBe(
      `no quarantined outbox events for consumer orders in outbox table ${h.bench.tableName}\n`,
    );
  });

  it('names an id that is neither quarantined nor pending in one line', async () => {
    const unknown = '00000000-0000-5000-8000-000000000000';
    expectOneLine(
      await mskInbox(['outbox', 'republish', unknown, ...local]),
      `msk-inbox: no outbox event ${unknown} for consumer orders in outbox table ${h.bench.tableName}, neither quarantined nor pending: \`msk-inbox outbox quarantined\` prints the ids`,
    );
  });

  it('asks which outbox in one line, and answers --help on every command', async () => {
    expectOneLine(
      await mskInbox(['outbox', 'list', '--endpoint', inject('dynamoDbEndpoint')]),
      'msk-inbox: which outbox? pass --outbox-table NAME (or set OUTBOX_TABLE_NAME), or --postgres URL for a Postgres outbox',
    );
    expectOneLine(
      await mskInbox(['outbox', 'list', ...local.slice(0, 2), '--outbox-table', 'nope']),
      /^msk-inbox: outbox table nope not found at http:\/\/\S+: check --outbox-table, --region or --endpoint$/,
    );
    for (const command of [['outbox'], ...['list', 'quarantined', 'republish'].map((c) => ['outbox', c])]) {
      const help = await mskInbox([...command, '--help']);
      expect({ command, code: help.code }).toEqual({ command, code: 0 });
      expect(help.stdout).toMatch(/^Usage: msk-inbox outbox/);
    }
  });
});
