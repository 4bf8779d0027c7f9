/**
 * A consumer whose inbox lives in the team's own Postgres database (`store: postgresInbox()` in its
 * code): the network path to it (the function in the VPC, a security group of its own, ingress on the
 * database's), the one credential it may use (rds-db:connect as one user, or read on one secret), the
 * variables `postgresInbox()` reads at cold start (named once, in lambdas/postgres/postgres-settings.ts),
 * and the schedule that sends the function DELETE_EXPIRED_ROWS_EVENT (Postgres has no TTL of its own).
 * The Postgres outbox relay (postgres-outbox-relay.ts) reaches the same database the same way, without
 * that schedule.
 */
import { Duration, Token, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as rds from 'aws-cdk-lib/aws-rds';
import { Construct } from 'constructs';
import type { SettingDefinition } from '../lambdas/core/settings.js';
import { DELETE_EXPIRED_ROWS_EVENT } from '../lambdas/core/store-choice.js';
import { POSTGRES_SETTINGS, type PostgresSettingName } from '../lambdas/postgres/postgres-settings.js';
import { grantConnect, StatementCollector } from './postgres-login.js';
import type { PostgresAuth, PostgresDatabase, PostgresInboxProps, PostgresTls } from './postgres-props.js';

/**
 * Where Lambda's Node.js 20+ runtimes keep the Amazon CA bundle (RDS's included), which they no longer
 * load by default: https://docs.aws.amazon.com/lambda/latest/dg/lambda-nodejs.html
 * (CA certificate loading)
 */
export const LAMBDA_CA_BUNDLE = '/var/runtime/ca-cert.pem';

/**
 * What a function in a VPC needs to create and remove its network interfaces, granted inline because the
 * consumer's role is its own (CDK adds AWSLambdaVPCAccessExecutionRole only to a role it creates).
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-vpc.html#configuration-vpc-permissions
 */
export const FUNCTION_VPC_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
] as const;

const PROXY_PORT = 5432;

/**
 * The settings the construct sets from its props (`url` is for running it here, never deployed); the
 * others (a pool's idle timeout, say) stay the team's to tune through `environment`.
 */
const SET_BY_CONSTRUCT = [
  'host',
  'port',
  'database',
  'user',
  'auth',
  'secretArn',
  'url',
  'tls',
  'schema',
  'poolMax',
  'statementTimeoutMs',
] as const satisfies readonly PostgresSettingName[];

/** Every variable the construct owns for a Postgres consumer: `environment` may not set them. */
export const POSTGRES_VARIABLES: readonly string[] = [
  ...SET_BY_CONSTRUCT.map((name) => POSTGRES_SETTINGS[name].env),
  'NODE_EXTRA_CA_CERTS',
];

/** What is wrong with the `postgres` prop, each line saying what to change. */
export function postgresProblems(props: PostgresInboxProps): string[] {
  const problems: string[] = [];
  const schema = props.schema ?? POSTGRES_SETTINGS.schema.default;
  if (!Token.isUnresolved(schema) && !POSTGRES_SETTINGS.schema.pattern.test(schema)) {
    problems.push(`postgres.schema "${schema}" ${POSTGRES_SETTINGS.schema.patternHint}`);
  }
  if (!Token.isUnresolved(props.databaseName) && props.databaseName.trim() === '') {
    problems.push('postgres.databaseName is empty: name the database holding the inbox schema');
  }
  if ('iam' in props.auth && !Token.isUnresolved(props.auth.iam.user) && props.auth.iam.user.trim() === '') {
    problems.push('postgres.auth.iam.user is empty: name the database user the role may connect as');
  }
  const every = props.deleteExpiredRowsEvery;
  if (every !== undefined && every !== false) {
    const minutes = every.toMinutes({ integral: false });
    if (!Number.isInteger(minutes) || minutes < 1) {
      problems.push(
        `postgres.deleteExpiredRowsEvery is ${every.toSeconds({ integral: false })}s: set whole minutes, at least 1 (or false for no schedule)`,
      );
    }
  }
  const integer = (name: string, value: number | undefined, definition: SettingDefinition): void => {
    if (value === undefined || definition.kind !== 'integer') return;
    if (!Number.isInteger(value) || value < definition.min || value > definition.max) {
      problems.push(
        `postgres.${name} is ${value}: set a whole number from ${definition.min} to ${definition.max}`,
      );
    }
  };
  integer('poolMax', props.poolMax, POSTGRES_SETTINGS.poolMax);
  integer(
    'statementTimeout (ms)',
    props.statementTimeout?.toMilliseconds(),
    POSTGRES_SETTINGS.statementTimeoutMs,
  );
  if (props.database.kind === 'proxy') {
    const { proxy, securityGroups } = props.database;
    if (securityGroups === undefined && !isConnectable(proxy)) {
      problems.push(
        'postgres.database.securityGroups is missing: an imported proxy does not say its security groups; pass them so the function may be let in',
      );
    }
  }
  if (props.database.kind !== 'proxy') {
    const { kind } = props.database;
    const connectable = kind === 'cluster' ? props.database.cluster : props.database.instance;
    if (connectable.connections.defaultPort === undefined) {
      problems.push(
        `postgres.database.${kind} has no port: import it with its port, so its security groups can let the function in`,
      );
    }
  }
  return problems;
}

function isConnectable(value: object): value is ec2.IConnectable {
  return 'connections' in value && (value as ec2.IConnectable).connections instanceof ec2.Connections;
}

/** Who connects, for the descriptions of the security group and of the ingress on the database. */
export interface PostgresConnectionLabels {
  /**
   * The function, in the ingress rule's description (`<function> (msk-inbox) to Postgres`).
   * @default 'Kafka consumer function'
   */
  readonly functionLabel?: string;
  /**
   * The function's security group's description. CloudFormation replaces a group whose description
   * changes: a consumer's stays what it was.
   * @default 'Kafka consumer function: to its Postgres database'
   */
  readonly securityGroupDescription?: string;
}

/**
 * A function's way into its Postgres database, the consumer's (KafkaConsumer) or the outbox relay's
 * (PostgresOutboxRelay): made before the function (which needs its security group and variables), then
 * bound to it (grants, ingress, the expired-rows schedule).
 */
export class PostgresInboxConnection extends Construct {
  /** The function's security group: egress to the database's port (and HTTPS with `secret` auth) only. */
  public readonly securityGroup: ec2.SecurityGroup;
  /** The proxy, cluster or instance connected to. */
  public readonly database: PostgresDatabase;
  /** The VPC the function is placed in. */
  public readonly vpc: ec2.IVpc;
  /** The function's subnets; undefined: CDK's default (private) selection. */
  public readonly vpcSubnets: ec2.SubnetSelection | undefined;
  /** The endpoint the function connects to (`POSTGRES_HOST`). */
  public readonly host: string;
  /** Its port, as text (`POSTGRES_PORT`): a token for a cluster or instance. */
  public readonly port: string;
  /** `POSTGRES_DATABASE`. */
  public readonly databaseName: string;
  /** `POSTGRES_SCHEMA`: where the inbox and quarantine tables are. */
  public readonly schema: string;
  /** `POSTGRES_TLS`. */
  public readonly tls: PostgresTls;
  /** How the function logs in. */
  public readonly auth: PostgresAuth;
  #expiredRowsRule: events.Rule | undefined;
  readonly #props: PostgresInboxProps;
  readonly #databaseConnections: ec2.Connections;
  readonly #functionLabel: string;

  public constructor(
    scope: Construct,
    id: string,
    props: PostgresInboxProps,
    labels: PostgresConnectionLabels = {},
  ) {
    super(scope, id);
    this.#props = props;
    this.#functionLabel = labels.functionLabel ?? 'Kafka consumer function';
    this.database = props.database;
    this.vpc = props.vpc;
    this.vpcSubnets = props.vpcSubnets;
    this.databaseName = props.databaseName;
    this.schema = props.schema ?? POSTGRES_SETTINGS.schema.default;
    this.tls = props.tls ?? (POSTGRES_SETTINGS.tls.default as PostgresTls);
    this.auth = props.auth;
    const endpoint = databaseEndpoint(props.database);
    this.host = endpoint.host;
    this.port = endpoint.port;
    this.#databaseConnections = endpoint.connections;
    this.securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      // Nothing but the database (and Secrets Manager with `secret` auth): add what your effect calls
      // with consumer.function.connections.
      allowAllOutbound: false,
      description: labels.securityGroupDescription ?? 'Kafka consumer function: to its Postgres database',
    });
    if ('secret' in props.auth) {
      // Secrets Manager's endpoint (public, or an interface endpoint in the VPC) has no address known here.
      this.securityGroup.addEgressRule(
        ec2.Peer.anyIpv4(),
        ec2.Port.tcp(443),
        'HTTPS to Secrets Manager for the database secret',
      );
    }
  }

  /** The rule sending DELETE_EXPIRED_ROWS_EVENT (once bound); none with `deleteExpiredRowsEvery: false`. */
  public get expiredRowsRule(): events.Rule | undefined {
    return this.#expiredRowsRule;
  }

  /** The variables `postgresInbox()` reads at cold start, named by POSTGRES_SETTINGS (KafkaConsumer sets them). */
  public environment(): Record<string, string> {
    const props = this.#props;
    const values: Partial<Record<PostgresSettingName, string | undefined>> = {
      host: this.host,
      port: this.port,
      database: this.databaseName,
      auth: 'iam' in this.auth ? 'iam' : 'secret',
      user: 'iam' in this.auth ? this.auth.iam.user : undefined,
      secretArn: 'secret' in this.auth ? this.auth.secret.secretArn : undefined,
      tls: this.tls,
      schema: this.schema,
      poolMax: props.poolMax === undefined ? undefined : String(props.poolMax),
      statementTimeoutMs:
        props.statementTimeout === undefined ? undefined : String(props.statementTimeout.toMilliseconds()),
    };
    const environment: Record<string, string> = {};
    for (const [name, value] of Object.entries(values) as [PostgresSettingName, string | undefined][]) {
      if (value !== undefined) environment[POSTGRES_SETTINGS[name].env] = value;
    }
    // Node.js 20+ runtimes no longer trust the RDS CAs by default; without them verify-full fails.
    if (this.tls === 'verify-full') environment.NODE_EXTRA_CA_CERTS = LAMBDA_CA_BUNDLE;
    return environment;
  }

  /**
   * The consumer's login as policy statements for another principal (operators connect as the consumer
   * does, docs/operate.md#postgres): rds-db:connect as its user, made by the same grantConnect, or read
   * on its secret.
   */
  public loginStatements(): iam.PolicyStatement[] {
    const collector = new StatementCollector();
    if ('iam' in this.auth) grantConnect(this.database, collector, this.auth.iam.user);
    else this.auth.secret.grantRead(collector);
    return collector.statements;
  }

  /**
   * The function's credential, its network interfaces, the database's ingress, and the schedule (unless
   * `deleteExpiredRowsEvery: false`): called once by KafkaConsumer or PostgresOutboxRelay, after it made
   * the function.
   */
  public bind(fn: lambda.IFunction, role: iam.Role): void {
    if ('iam' in this.auth) {
      grantConnect(this.database, role, this.auth.iam.user);
    } else {
      this.auth.secret.grantRead(role);
    }
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: [...FUNCTION_VPC_ACTIONS], resources: ['*'] }),
    );
    // Ingress on the database's (or proxy's) security groups from the function's, on the database's port;
    // Connections adds the matching egress on the function's group, which allows nothing else outbound.
    this.#databaseConnections.allowDefaultPortFrom(
      this.securityGroup,
      `${this.#functionLabel} (msk-inbox) to Postgres`,
    );
    const every = this.#props.deleteExpiredRowsEvery ?? Duration.hours(1);
    if (every !== false) {
      this.#expiredRowsRule = new events.Rule(this, 'DeleteExpiredRows', {
        description: 'msk-inbox: delete expired inbox rows in the Postgres store',
        schedule: events.Schedule.rate(every),
        targets: [
          new targets.LambdaFunction(fn, {
            event: events.RuleTargetInput.fromObject(DELETE_EXPIRED_ROWS_EVENT),
            // A run that fails leaves the rows for the next one: retrying it only overlaps that run.
            retryAttempts: 0,
          }),
        ],
      });
      Validations.of(this.#expiredRowsRule).acknowledge({
        id: 'Serverless-EventBusDLQ',
        reason:
          'The schedule event carries no data and the deletion is idempotent: an undelivered one leaves the expired rows to the next run, which a dead-letter queue could only repeat.',
      });
    }
  }
}

/** Host, port (text for the variable) and the connections whose default port is the database's. */
function databaseEndpoint(database: PostgresDatabase): {
  host: string;
  port: string;
  connections: ec2.Connections;
} {
  switch (database.kind) {
    case 'proxy': {
      const port = database.port ?? PROXY_PORT;
      const securityGroups = database.securityGroups ?? connectionsOf(database.proxy)?.securityGroups ?? [];
      return {
        host: database.proxy.endpoint,
        port: String(port),
        connections: new ec2.Connections({
          securityGroups: [...securityGroups],
          defaultPort: ec2.Port.tcp(port),
        }),
      };
    }
    case 'cluster':
      return {
        host: database.cluster.clusterEndpoint.hostname,
        port: portText(database.cluster.clusterEndpoint.port),
        connections: database.cluster.connections,
      };
    case 'instance':
      return {
        host: database.instance.dbInstanceEndpointAddress,
        port: database.instance.dbInstanceEndpointPort,
        connections: database.instance.connections,
      };
  }
}

/** A cluster's port is a number token until deploy: as text, it must stay a token. */
function portText(port: number): string {
  return Token.isUnresolved(port) ? Token.asString(port) : String(port);
}

function connectionsOf(proxy: rds.IDatabaseProxy): ec2.Connections | undefined {
  return isConnectable(proxy) ? proxy.connections : undefined;
}
