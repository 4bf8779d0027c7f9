/**
 * KafkaConsumer's `postgres` prop, typed: the team's existing database (proxy, cluster or instance), how
 * the function logs in and checks the server, and how the inbox uses it. postgres-database.ts builds
 * from it.
 */
import type { Duration } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { POSTGRES_SETTINGS } from '../lambdas/postgres/postgres-settings.js';

/**
 * The database the function connects to: an RDS Proxy in front of it (pooled connections, the better
 * choice for Lambda), or the Aurora cluster or RDS instance itself.
 */
export type PostgresDatabase =
  | {
      readonly kind: 'proxy';
      readonly proxy: rds.IDatabaseProxy;
      /**
       * The proxy's security groups: the construct adds the function's ingress to them. `IDatabaseProxy`
       * does not expose them (an imported proxy has none to read).
       * @default - the proxy's own, when it is a `DatabaseProxy` of this app
       */
      readonly securityGroups?: readonly ec2.ISecurityGroup[];
      /**
       * The port the proxy listens on.
       * @default 5432 (PostgreSQL's, docs/aws-facts.md#rds-and-rds-proxy)
       */
      readonly port?: number;
    }
  | { readonly kind: 'cluster'; readonly cluster: rds.IDatabaseCluster }
  | { readonly kind: 'instance'; readonly instance: rds.IDatabaseInstance };

/**
 * How the function logs in; never a password in a variable. `iam`: a token per connection, the role
 * allowed `rds-db:connect` as `user` only. `secret`: the user and password of a Secrets Manager secret in
 * RDS's JSON shape (`username`, `password`), the role allowed to read that secret only.
 */
export type PostgresAuth =
  | { readonly iam: { readonly user: string } }
  | { readonly secret: secretsmanager.ISecret };

/** How the connection checks the server (`POSTGRES_TLS`): `verify-full` checks its certificate and name. */
export type PostgresTls = 'verify-full' | 'require' | 'disable';

// PostgresTls is written out for the API report; this fails the build when the table's choices differ.
/** `true` when A and B are the same union, else `never`: for types written out beside a settings table. */
export type SameAs<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const TLS_MATCHES_SETTINGS: SameAs<PostgresTls, (typeof POSTGRES_SETTINGS.tls.choices)[number]> = true;
void TLS_MATCHES_SETTINGS;

/** KafkaConsumer's `postgres` prop: the team's existing database, and how the inbox uses it. */
export interface PostgresInboxProps {
  /** The proxy, cluster or instance to connect to. */
  readonly database: PostgresDatabase;
  /** The VPC the database is reached in: the function is placed in it. */
  readonly vpc: ec2.IVpc;
  /**
   * The function's subnets. They need a route to Secrets Manager with `secret` auth (a NAT gateway or an
   * interface endpoint); `iam` auth signs its tokens locally and needs none.
   * @default - the VPC's private subnets (CDK's default selection for a function)
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** The database holding the business tables and the inbox schema (`POSTGRES_DATABASE`). */
  readonly databaseName: string;
  /** How the function logs in: `{ iam: { user } }` or `{ secret }`. */
  readonly auth: PostgresAuth;
  /**
   * How the connection checks the server (`POSTGRES_TLS`).
   * @default 'verify-full' (with the Lambda runtime's RDS CA bundle: docs/aws-facts.md#rds-and-rds-proxy)
   */
  readonly tls?: PostgresTls;
  /**
   * The schema of the inbox and quarantine tables (`POSTGRES_SCHEMA`), a lower-case SQL identifier.
   * @default 'msk_inbox'
   */
  readonly schema?: string;
  /**
   * How often the function is sent DELETE_EXPIRED_ROWS_EVENT, to delete expired inbox rows in bounded
   * batches; whole minutes. `false`: no schedule (delete them your own way, or the table grows).
   * @default Duration.hours(1)
   */
  readonly deleteExpiredRowsEvery?: Duration | false;
  /**
   * Connections per execution environment (`POSTGRES_POOL_MAX`); 0: one per partition processed at once.
   * @default - the handler's default (0)
   */
  readonly poolMax?: number;
  /**
   * A statement running longer is cancelled and its record retried (`POSTGRES_STATEMENT_TIMEOUT_MS`).
   * @default - the handler's default (10 seconds)
   */
  readonly statementTimeout?: Duration;
}
