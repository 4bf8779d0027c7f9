import { HANDLER_SETTINGS } from '../../lambdas/core/settings.js';
import { MAX_RECORDS_PER_TRANSACTION } from '../../lambdas/postgres/postgres-inbox-store.js';
import type { Contender } from './contender.js';
import { inboxContender } from './inbox.js';
import { type PostgresContender, postgresContender } from './postgres-inbox.js';
import { powertoolsContender } from './powertools.js';

export const inboxTx = {
  name: 'inbox-tx',
  description:
    'transactional mode, default settings: a new record is its inbox row + 2 updates in a TransactWriteItems; ' +
    `ready records of a partition share one (TRANSACT_GROUP_MAX_RECORDS, default ${HANDLER_SETTINGS.transactGroupMaxRecords.default})`,
  mode: 'transactional',
} as const;

const inboxTxPerKey = {
  name: 'inbox-tx-per-key',
  description:
    'transactional mode, ORDERING=key on the Kafka key: keys of a partition run concurrently, their ready records sharing transactions',
  mode: 'transactional',
  settings: { ordering: 'key', keySource: 'kafka-key' },
} as const;

/** Every contender compared, in report order; each runs the same deliveries on fresh tables. */
export const CONTENDERS: readonly Contender[] = [
  inboxContender(inboxTx),
  inboxContender({
    ...inboxTx,
    name: 'inbox-tx-ungrouped',
    description: 'transactional mode, TRANSACT_GROUP_MAX_RECORDS=1: one TransactWriteItems per new record',
    settings: { transactGroupMaxRecords: 1 },
  }),
  inboxContender(inboxTxPerKey),
  inboxContender({
    name: 'inbox-claim',
    description: 'side-effect mode: claim PutItem, 2 UpdateItem under the lease, fenced complete UpdateItem',
    mode: 'side-effect',
  }),
  inboxContender({
    name: 'inbox-idempotent',
    description:
      'an idempotent plan, no inbox row: one PutItem of the order item under attribute_not_exists(pk) per new record; ' +
      "the sample's account debit accumulates, which no idempotent shape allows, so the balance is the sum of the account's orders, read where needed",
    mode: 'idempotent',
  }),
  powertoolsContender,
];

/**
 * The inbox on Postgres (`store: postgresInbox()`, the sample's SQL effect), in report order; each runs the
 * same deliveries as the DynamoDB contenders, in a fresh schema.
 */
export const POSTGRES_CONTENDERS: readonly PostgresContender[] = [
  postgresContender({
    name: 'inbox-pg',
    description:
      'Postgres store, default settings: ready records of a partition share one transaction (TRANSACT_GROUP_MAX_RECORDS, ' +
      `default ${HANDLER_SETTINGS.transactGroupMaxRecords.default}; at most ${MAX_RECORDS_PER_TRANSACTION} records per transaction), ` +
      'BEGIN, per record SAVEPOINT + inbox INSERT + 2 upserts, COMMIT',
  }),
  postgresContender({
    name: 'inbox-pg-ungrouped',
    description:
      'Postgres store, TRANSACT_GROUP_MAX_RECORDS=1: BEGIN, inbox INSERT, 2 upserts, COMMIT per new record',
    settings: { transactGroupMaxRecords: 1 },
  }),
  postgresContender({
    name: 'inbox-pg-per-key',
    description:
      "Postgres store, ORDERING=key on the Kafka key: keys of a partition run concurrently, a key's ready records share a transaction",
    settings: inboxTxPerKey.settings,
  }),
];

/** One optimisation turned off (or pushed further), run beside the contender it changes. */
export interface Ablation {
  readonly baseline: string;
  readonly variant: Contender;
  /** The sequence it runs on (by name) and the scenario its effect shows in. */
  readonly sequence: string;
  readonly scenario: string;
}

export const ABLATIONS: readonly Ablation[] = [
  {
    baseline: 'inbox-tx',
    variant: inboxContender({
      ...inboxTx,
      name: 'inbox-tx without the completed-key cache',
      description: 'COMPLETED_KEY_CACHE_SIZE=0',
      settings: { completedKeyCacheSize: 0 },
    }),
    sequence: 'new then redelivered',
    scenario: 'redelivery-4p',
  },
  {
    baseline: 'inbox-tx',
    variant: inboxContender({
      ...inboxTx,
      name: 'inbox-tx without keep-alive',
      description: 'a new connection per request',
      clientOverrides: (config) => ({
        ...config,
        requestHandler: {
          ...(config.requestHandler as object),
          httpAgent: { keepAlive: false },
          httpsAgent: { keepAlive: false },
        },
      }),
    }),
    sequence: 'new then redelivered',
    scenario: 'new-4p',
  },
  {
    baseline: 'inbox-tx-per-key',
    variant: inboxContender({
      ...inboxTxPerKey,
      name: 'inbox-tx-per-key with KEY_CONCURRENCY=64',
      description: 'every key of the partition in flight',
      settings: { ...inboxTxPerKey.settings, keyConcurrency: 64 },
    }),
    sequence: 'one partition, many keys',
    scenario: 'keys-1p',
  },
];
