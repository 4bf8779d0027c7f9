import { type Duration, Validations } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { POSTGRES_RELAY_ENTRY } from './bundling.js';
import { throwIfProblems } from './invalid-props-error.js';
import { PostgresInboxConnection } from './postgres-database.js';
import {
  type PostgresOutboxRelayProps,
  postgresRelayEnvironment,
  postgresRelayProblems,
  resolvePostgresRelaySettings,
} from './postgres-outbox-relay-props.js';
import {
  acknowledgeRelayFunctionFindings,
  allowBrokerEgress,
  grantRelayKafka,
  relayFunctionProps,
  relayRoleAndLogs,
} from './relay-function.js';

export type {
  PostgresOutboxRelayProps,
  PostgresRelayDatabase,
  PostgresRelayWake,
} from './postgres-outbox-relay-props.js';

/**
 * The outbox relay for consumers whose inbox (and so outbox) is in Postgres (docs/postgres.md#outbox):
 * the package's Postgres relay function, in the database's VPC, started by an EventBridge rule every
 * `schedule`. Each invocation claims keys with pending events (FOR UPDATE SKIP LOCKED), produces them to
 * MSK with IAM authentication and deletes what it published, woken by NOTIFY or its poll, until a margin
 * before its timeout. The timeout is longer than the schedule, so the next invocation has started before
 * one returns; two at once never hold the same key. Its role may write the named topics and nothing else
 * on Kafka, and log in to the database as `postgres.auth` says.
 */
export class PostgresOutboxRelay extends Construct {
  /** The topics it may write. */
  public readonly topics: readonly string[];
  /** The relay function: the package's Postgres relay entry, bundled as the consumer is. */
  public readonly function: nodejs.NodejsFunction;
  /** The function's role: its logs, its login to the database, its network interfaces, the topics' writes. */
  public readonly role: iam.Role;
  /** The function's log group, retained when the stack is deleted. */
  public readonly logGroup: logs.LogGroup;
  /** The way into the database: its login, the POSTGRES_* variables, the ingress on its security groups. */
  public readonly postgres: PostgresInboxConnection;
  /** The function's security group: the database's port and the brokers' (and HTTPS with `secret` auth). */
  public readonly securityGroup: ec2.SecurityGroup;
  /** The rule that starts the relay every `schedule`. */
  public readonly scheduleRule: events.Rule;
  /** How often the rule starts the relay. */
  public readonly schedule: Duration;
  /** The function's timeout, longer than `schedule`. */
  public readonly timeout: Duration;

  public constructor(scope: Construct, id: string, props: PostgresOutboxRelayProps) {
    super(scope, id);
    const settings = resolvePostgresRelaySettings(props);
    throwIfProblems(
      `PostgresOutboxRelay ${this.node.path} props are invalid`,
      postgresRelayProblems(this, props, settings),
    );
    const { cluster, postgres } = props;
    this.topics = [...props.topics];
    this.schedule = settings.schedule;
    this.timeout = settings.timeout;

    // The consumers' way in, field by field (nothing a consumer's prop adds), and without the expired-rows
    // schedule: the inbox rows are the consumers' to delete, and the relay deletes the events it publishes.
    this.postgres = new PostgresInboxConnection(
      this,
      'Postgres',
      {
        database: postgres.database,
        vpc: postgres.vpc,
        vpcSubnets: postgres.vpcSubnets,
        databaseName: postgres.databaseName,
        auth: postgres.auth,
        tls: postgres.tls,
        schema: postgres.schema,
        deleteExpiredRowsEvery: false,
      },
      {
        functionLabel: 'Postgres outbox relay function',
        securityGroupDescription:
          'Postgres outbox relay function: to its Postgres database and the MSK brokers',
      },
    );
    this.securityGroup = this.postgres.securityGroup;
    allowBrokerEgress(this.securityGroup, cluster, postgres.vpc, 'Postgres outbox relay to MSK (IAM)');

    const { role, logGroup } = relayRoleAndLogs(
      this,
      'Postgres outbox relay: reads and deletes the outbox rows, writes the named MSK topics',
      props.logRetention,
    );
    this.role = role;
    this.logGroup = logGroup;
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      ...relayFunctionProps({
        entry: POSTGRES_RELAY_ENTRY,
        memorySize: settings.memorySize,
        timeout: settings.timeout,
        role,
        logGroup,
        cluster,
        environment: { ...this.postgres.environment(), ...postgresRelayEnvironment(settings) },
      }),
      vpc: postgres.vpc,
      vpcSubnets: postgres.vpcSubnets,
      securityGroups: [this.securityGroup],
      description: `Publishes the Postgres outbox's events to ${this.topics.join(', ')}`.slice(0, 256),
      // The schedule starts another within `schedule`: Lambda retrying a failed invocation, or running
      // one held back longer than that, would only add a relay beside it.
      retryAttempts: 0,
      // At least 60 s, as Lambda requires, since the schedule is whole minutes; at most 14 minutes, since
      // the timeout (15 minutes at most) exceeds it.
      // https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html
      maxEventAge: settings.schedule,
    });
    this.postgres.bind(this.function, role);
    grantRelayKafka(role, cluster.clusterArn, this.topics);

    this.scheduleRule = new events.Rule(this, 'Schedule', {
      description: 'msk-inbox: start the Postgres outbox relay (it runs until just before its timeout)',
      schedule: events.Schedule.rate(settings.schedule),
      // The event's content is ignored; an undelivered one is followed by the next within `schedule`.
      targets: [new targets.LambdaFunction(this.function, { retryAttempts: 0 })],
    });
    this.acknowledgeNagFindings();
  }

  private acknowledgeNagFindings(): void {
    acknowledgeRelayFunctionFindings(this.function, this.role.node.tryFindChild('DefaultPolicy'), {
      vpcOf: "its database's",
      invocation:
        'Invoked asynchronously by its schedule only, with an event that carries no data: the events stay in the outbox tables, and the next invocation, within the schedule, takes them up.',
      tracing:
        "A scheduled event carries no trace context; the relay's EMF metrics, JSON logs and RelayMonitoring's dashboard cover each invocation.",
    });
    const invokeConfig = this.function.node.tryFindChild('EventInvokeConfig');
    if (invokeConfig) {
      Validations.of(invokeConfig).acknowledge({
        id: 'Serverless-LambdaAsyncFailureDestination',
        reason:
          "The only asynchronous events are the schedule's, which carry no data: a failed invocation leaves the events in the outbox tables for the next, and a failure destination would hold empty schedule events.",
      });
    }
    Validations.of(this.scheduleRule).acknowledge({
      id: 'Serverless-EventBusDLQ',
      reason:
        'The schedule event carries no data and the relay keeps nothing of it: an undelivered one is followed by the next within the schedule, which a dead-letter queue could only repeat.',
    });
  }
}
