/**
 * The real `msk-inbox` command, spawned, on a Redis inbox (Debian's redis-server): a mistake (two inboxes
 * named, nothing answering) is one line on stderr naming the fix, exit 2; a shell set up like the function
 * (REDIS_URL) needs no flag; and a replay through `--handler` ends the process though the consumer's Redis
 * client is still open. The commands' behaviour is tested in test/integration/operator/redis-*.test.ts.
 * Each test spawns the bin twice, whose start (tsx) takes seconds on a busy machine: they get a minute.
 */
import { expect, it } from 'vitest';
import { CONSUMER, deliver } from '../integration/operator/operator-harness.js';
import { REDIS_HANDLER_FILE, useRedisConsumerEnvironment } from '../integration/operator/redis-harness.js';
import { kafkaEvent } from '../support/kafka-events.js';
import { expectOneLine, mskInbox, WITHOUT_CREDENTIALS } from '../support/msk-inbox-cli.js';
import { describeOnRedis } from '../support/redis.js';

const list = ['quarantine', 'list', '--consumer', CONSUMER];

// One mistake found before connecting and one after: the rest are test/unit/operator/redis-target.test.ts's.
it('refuses mistakes in one line: two inboxes named, nothing answering', async () => {
  const [both, refused] = await Promise.all([
    mskInbox([...list, '--redis', 'redis://127.0.0.1:9', '--table', 'inbox']),
    mskInbox([...list, '--redis', 'redis://127.0.0.1:9']),
  ]);
  expectOneLine(both, 'msk-inbox: --redis or --table, not both: the inbox is in one of them');
  expectOneLine(
    refused,
    'msk-inbox: nothing answers at 127.0.0.1:9 (ECONNREFUSED): is the server running? check --redis',
  );
}, 60_000);

describeOnRedis('msk-inbox on Redis, spawned', (server) => {
  it('lists from the variables the function has, replays through --handler, and ends', async () => {
    useRedisConsumerEnvironment(server().url);
    const { handler } = await import('../integration/operator/fixtures/redis-orders-handler.js');
    const poison = kafkaEvent([{ offset: 7, value: { event_id: 'e7', amount: 500 } }]);
    expect((await deliver(poison, Date.now(), handler)).batchItemFailures).toEqual([]);
    const likeTheFunction = { ...WITHOUT_CREDENTIALS, CONSUMER_NAME: CONSUMER, REDIS_URL: server().url };

    const listed = await mskInbox(['quarantine', 'list'], likeTheFunction);
    expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(listed.stdout).toMatch(/^orders-0@7\s+invalid-event\s+/m);

    // The consumer's client stays connected: without the tool's own exit this would never end.
    const replayed = await mskInbox(
      ['quarantine', 'replay', 'orders-0@7', '--handler', REDIS_HANDLER_FILE, '--json'],
      { ...likeTheFunction, ORDERS_MAX_AMOUNT: '1000' },
    );
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout).results).toEqual([
      { id: 'orders-0@7', outcome: 'applied', detail: 'applied', dedupKey: 'e7' },
    ]);
  }, 60_000);
});
