/**
 * `postgresInbox({ pool })`: a pool of the team's own is the connection (its documentation: "the settings'
 * connection is then not opened"), so the connection settings the pool replaces are not required.
 */
import { describe, expect, it } from 'vitest';
import { createInboxConsumer } from '../../../lambdas/core/index.js';
import { postgresInbox } from '../../../lambdas/postgres/index.js';
import { orderSqlConsumer } from '../../../sample/order-consumer/order-placed-sql.js';

const pool = {
  connect: () => Promise.reject(new Error('not connected in this test')),
  end: () => Promise.resolve(),
};

describe('postgresInbox with a pool of its own', () => {
  it('builds the consumer with only the schema set, no POSTGRES_HOST, _DATABASE or _USER', () => {
    const build = () =>
      createInboxConsumer({
        ...orderSqlConsumer('app'),
        store: postgresInbox({ pool, settings: { schema: 'inbox' } }),
        settings: { consumerName: 'orders' },
      });

    expect(build).not.toThrow();
  });

  it('still checks the settings it reads', () => {
    const build = () =>
      createInboxConsumer({
        ...orderSqlConsumer('app'),
        store: postgresInbox({ pool, settings: { schema: 'Not An Identifier' } }),
        settings: { consumerName: 'orders' },
      });

    expect(build).toThrow(/POSTGRES_SCHEMA/);
  });
});
