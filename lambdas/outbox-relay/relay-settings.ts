/**
 * The relay function's settings, one table: the environment variable each is read from, its meaning and
 * default. The relay construct (lib/outbox-relay.ts) writes them, the relay (handler.ts) reads them, and
 * docs/outbox.md lists them from here.
 */
export const RELAY_SETTINGS = {
  outboxTableName: {
    env: 'OUTBOX_TABLE_NAME',
    meaning: 'the outbox table the relay reads and removes published events from (docs/outbox.md)',
  },
  bootstrapServers: {
    env: 'KAFKA_BOOTSTRAP_SERVERS',
    meaning: 'the brokers to produce to, `host:port,host:port` (MSK: the IAM bootstrap brokers, port 9098)',
  },
  kafkaAuth: {
    env: 'KAFKA_AUTH',
    default: 'iam',
    choices: ['iam', 'none'],
    meaning:
      "`iam`: SASL OAUTHBEARER with a SigV4 token of the function's role (MSK IAM), over TLS; `none`: plaintext (local only)",
  },
} as const;

export type RelaySettingName = keyof typeof RELAY_SETTINGS;
