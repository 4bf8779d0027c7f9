import type { DynamoDBClient, DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import type { KafkaBatchResponse, KafkaEvent } from '../../lambdas/core/kafka-event.js';

export const CONTENDER_NAMES = [
  'inbox-tx',
  'inbox-tx-ungrouped',
  'inbox-tx-per-key',
  'inbox-claim',
  'inbox-idempotent',
  'powertools',
] as const;
export type ContenderName = (typeof CONTENDER_NAMES)[number];

export type BalanceSource = 'accounts' | 'orders';

/** Fresh tables for one sequence of deliveries. */
export interface BenchTables {
  readonly inbox: string;
  readonly app: string;
  /** Powertools' own table, keyed by `id`. */
  readonly idempotency: string;
  /** The outbox table (with its stream), for a contender that emits; only the outbox bench makes one. */
  readonly outbox?: string;
}

export interface ContainerDependencies {
  /** Counted by the bench's middleware; every request a contender makes goes through it. */
  readonly dynamoDb: DynamoDBClient;
  readonly tables: BenchTables;
}

/** One Lambda execution environment: built once (cold start), then invoked batch after batch. */
export interface Container {
  invoke(event: KafkaEvent, context: Context): Promise<KafkaBatchResponse>;
}

export interface Contender {
  /** A ContenderName for those compared; a variant's own name for an ablation. */
  readonly name: string;
  /** One line for the report: what this contender does per record. */
  readonly description: string;
  /** How the container's DynamoDB client is set up (retries, timeouts, connection pool); endpoint aside. */
  readonly clientConfig: DynamoDBClientConfig;
  /**
   * Where the exactly-once check reads each account's balance: its `account#` item (the sample's debit),
   * or the sum of its `order#` items, for a contender that records orders instead of keeping a counter.
   * @default 'accounts'
   */
  readonly balancesFrom?: BalanceSource;
  createContainer(deps: ContainerDependencies): Container;
}
