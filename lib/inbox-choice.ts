/**
 * Where a KafkaConsumer's inbox is: exactly one of a DynamoDB InboxTable, the team's Postgres database or
 * its Redis cache; what each store's prop must be, what goes with it (an outbox with DynamoDB only), and
 * the variables the construct then owns.
 */
import type { KafkaConsumerProps } from './kafka-consumer-props.js';
import { POSTGRES_VARIABLES, postgresProblems } from './postgres-database.js';
import { REDIS_VARIABLES, redisProblems } from './redis-cache.js';

/** The props that name an inbox, in the order a problem lists them. */
const INBOX_PROPS = ['inboxTable', 'postgres', 'redis'] as const;

/** What is wrong with the choice of inbox and the store's prop, each line saying what to change. */
export function inboxProblems(props: KafkaConsumerProps): string[] {
  const problems: string[] = [];
  const given = INBOX_PROPS.filter((name) => props[name] !== undefined);
  if (given.length === 0) {
    problems.push(
      'no inbox: give inboxTable (a DynamoDB InboxTable), postgres (your Postgres database, with store: postgresInbox() in the handler) or redis (your Redis cache, with store: redisInbox())',
    );
  } else if (given.length > 1) {
    const names = given.length === 2 ? `both ${given[0]} and ${given[1]}` : given.join(', ');
    problems.push(
      `${names} are given: keep the one your handler uses (store: postgresInbox() is postgres${given.includes('redis') ? ', redisInbox() is redis' : ''})`,
    );
  }
  if (props.postgres !== undefined) problems.push(...postgresProblems(props.postgres));
  if (props.redis !== undefined) problems.push(...redisProblems(props.redis));
  if (props.outbox !== undefined && props.postgres !== undefined) {
    problems.push(
      "outbox is given with postgres: on Postgres the outbox lives in the consumer's schema (an OutboxTable is DynamoDB's); remove outbox, and publish the schema's outbox with PostgresOutboxRelay",
    );
  }
  if (props.outbox !== undefined && props.redis !== undefined) {
    problems.push(
      'outbox is given with redis: Redis cannot commit an outbox append with the inbox row (its effects are calls, docs/redis.md); remove outbox',
    );
  }
  return problems;
}

/** The variables the construct sets for the consumer's store, which `environment` may not set. */
export function storeVariables(props: KafkaConsumerProps): readonly string[] {
  return [
    ...(props.postgres === undefined ? [] : POSTGRES_VARIABLES),
    ...(props.redis === undefined ? [] : REDIS_VARIABLES),
  ];
}
