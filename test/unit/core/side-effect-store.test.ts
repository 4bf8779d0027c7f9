/**
 * A store that keeps no database's writes (Redis) refuses transactional effects before any record: the
 * types reject a `transact` or `sql` plan where it is written (`tsc --noEmit` checks the expect-errors
 * here), and the cold start refuses an outbox, whose events only a transaction can commit.
 */
import { describe, expect, it } from 'vitest';
import { createInboxConsumer } from '../../../lambdas/core/create-inbox-consumer.js';
import { ConfigError } from '../../../lambdas/core/errors.js';
import { redisInbox } from '../../../lambdas/redis/index.js';
import { REDIS_CANNOT_COMMIT } from '../../../lambdas/redis/redis-inbox-store.js';

/** A server nobody listens on: the client connects lazily, and none of these tests sends a command. */
const store = () => redisInbox({ settings: { url: 'redis://127.0.0.1:1' } });
const settings = { consumerName: 'payments' };

describe('a consumer on the Redis store', () => {
  it('takes a call or a skip effect', () => {
    const calling = createInboxConsumer({
      store: store(),
      settings,
      effect: () => ({ kind: 'call', run: async () => undefined }),
    });
    const skipping = createInboxConsumer({
      store: store(),
      settings,
      effect: () => ({ kind: 'skip', reason: 'n/a' }),
    });

    expect(typeof calling).toBe('function');
    expect(typeof skipping).toBe('function');
  });

  it('is a type error with a transact or sql effect', () => {
    const build = () => [
      // @ts-expect-error Redis cannot commit DynamoDB writes with its row
      createInboxConsumer({ store: store(), settings, effect: () => ({ kind: 'transact', writes: [] }) }),
      // @ts-expect-error nor SQL
      createInboxConsumer({
        store: store(),
        settings,
        effect: () => ({ kind: 'sql', run: async () => undefined }),
      }),
    ];

    // At run time (JavaScript, a cast) such a consumer still starts; each such record is refused as the
    // setup's mistake (test/integration/redis/redis-side-effect-mode.test.ts).
    expect(build()).toHaveLength(2);
  });

  it('refuses an outbox at cold start, in one line saying why', () => {
    const start = () =>
      createInboxConsumer({
        store: store(),
        settings: { ...settings, outboxTableName: 'outbox-payments' },
        effect: () => ({ kind: 'skip', reason: 'n/a' }),
      });

    expect(start).toThrow(ConfigError);
    expect(start).toThrow(
      `OUTBOX_TABLE_NAME is set, but emitted events commit with a transact or sql plan: ${REDIS_CANNOT_COMMIT}`,
    );
  });
});
