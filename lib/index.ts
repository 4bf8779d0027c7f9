/**
 * MSK Inbox, the CDK side: the constructs a team instantiates for its own consumer.
 *   const inbox = new InboxTable(stack, 'Inbox');
 *   const consumer = new KafkaConsumer(stack, 'Payments', { consumerName, source, topic, consumerGroupId, inboxTable: inbox, entry });
 *   new ConsumerMonitoring(stack, 'Monitoring', { consumer, tables: { inbox: inbox.table } });
 * With the inbox in the team's Postgres database instead: `postgres: { database, vpc, databaseName, auth }`
 * in place of `inboxTable` (docs/deploy.md#with-postgres); in the team's Redis or Valkey cache, for a handler
 * whose effects are calls: `redis: { cache, vpc, auth }` (docs/redis.md#deploying).
 * An effect that emits events (docs/outbox.md): `outbox` on the consumer, and one relay for the table:
 *   const outbox = new OutboxTable(stack, 'Outbox');
 *   const relay = new OutboxRelay(stack, 'Relay', { outbox, cluster: { clusterArn, bootstrapServers, vpc }, topics });
 *   new RelayMonitoring(stack, 'RelayMonitoring', { relay, alarmTopic: monitoring.alarmTopic });
 * With the inbox in Postgres, the outbox is in the consumers' schema: no `outbox` prop, and the relay is
 *   const relay = new PostgresOutboxRelay(stack, 'Relay', { postgres: { database, vpc, databaseName, auth }, cluster, topics });
 * watched by the same RelayMonitoring (docs/deploy.md#the-postgres-outbox-relay).
 */
export {
  type ConsumerAlarms,
  ConsumerMonitoring,
  type ConsumerMonitoringProps,
} from './consumer-monitoring.js';
export { InboxTable, type InboxTableProps } from './inbox-table.js';
export {
  type ConfluentSchemaRegistry,
  ESM_NETWORK_ACTIONS,
  type EventRecordFormat,
  type EventSourceOptions,
  type FailureDestination,
  type GlueSchemaRegistry,
  type HandlerLogLevel,
  KafkaConsumer,
  type KafkaConsumerProps,
  type KafkaRecordFilter,
  type KafkaSource,
  type MskSource,
  type PostgresAuth,
  type PostgresConnectionLabels,
  type PostgresDatabase,
  PostgresInboxConnection,
  type PostgresInboxProps,
  type PostgresTls,
  type ProvisionedPollers,
  type RedisAuth,
  type RedisCache,
  type RedisCacheKind,
  RedisInboxConnection,
  type RedisInboxProps,
  type RegistryCommon,
  type SchemaRegistry,
  type SchemaValidationAttribute,
  type SelfManagedKafkaSource,
} from './kafka-consumer.js';
export { RELAY_METRICS } from './monitoring/relay-metric-names.js';
export { ADOT_EXEC_WRAPPER, type OpenTelemetryProps } from './open-telemetry.js';
export { addOperatorOutputs } from './operator-outputs.js';
export { OPERATOR_ACTIONS, OperatorPolicy, type OperatorPolicyProps } from './operator-policy.js';
export { OutboxRelay, type OutboxRelayProps, type RelayCluster } from './outbox-relay.js';
export { OutboxTable, type OutboxTableProps } from './outbox-table.js';
export {
  PostgresOutboxRelay,
  type PostgresOutboxRelayProps,
  type PostgresRelayDatabase,
  type PostgresRelayWake,
} from './postgres-outbox-relay.js';
export { type RelayAlarms, RelayMonitoring, type RelayMonitoringProps } from './relay-monitoring.js';
