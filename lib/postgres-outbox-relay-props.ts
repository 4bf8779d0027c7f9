/**
 * What a PostgresOutboxRelay takes, its defaults, and the checks that fail synth with a message saying
 * what to change (docs/deploy.md#the-postgres-outbox-relay).
 */
import { Duration, Stack, Token } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';
import { valueProblem } from '../lambdas/core/settings.js';
import { POSTGRES_RELAY_SETTINGS } from '../lambdas/postgres/outbox/relay-settings.js';
import {
  clusterProblems,
  memorySizeProblem,
  type RelayCluster,
  timeoutProblem,
  topicProblems,
} from './outbox-relay-props.js';
import { postgresProblems } from './postgres-database.js';
import type { PostgresInboxProps, SameAs } from './postgres-props.js';

/**
 * The consumers' database, as their `postgres` prop gives it (the outbox tables are in the consumers'
 * schema, beside the inbox): the relay connects as a user of its own or as theirs.
 */
export type PostgresRelayDatabase = Pick<
  PostgresInboxProps,
  'database' | 'vpc' | 'vpcSubnets' | 'databaseName' | 'auth' | 'tls' | 'schema'
>;

/** How the relay waits for new events (`OUTBOX_WAKE`). */
export type PostgresRelayWake = 'notify' | 'poll';

// PostgresRelayWake is written out for the API report; this fails the build when the table's choices differ.
const WAKE_MATCHES_SETTINGS: SameAs<
  PostgresRelayWake,
  (typeof POSTGRES_RELAY_SETTINGS.wake.choices)[number]
> = true;
void WAKE_MATCHES_SETTINGS;

/** What a PostgresOutboxRelay takes: the database, the cluster and topics, and its schedule. */
export interface PostgresOutboxRelayProps {
  /**
   * The database and schema of the consumers' outbox; the function runs in its VPC. The user needs the
   * relay's grants on the outbox tables (docs/postgres.md#outbox).
   */
  readonly postgres: PostgresRelayDatabase;
  /**
   * The MSK cluster it produces to. Its brokers must be reachable from `postgres.vpc`, where the function
   * runs: `cluster.vpc`, if given, must be that VPC, and `cluster.vpcSubnets` is not taken.
   */
  readonly cluster: RelayCluster;
  /**
   * Every topic the consumers' effects emit to: the relay gets DescribeTopic and WriteData on these only.
   * An event for another topic is refused by the brokers and quarantined by the relay.
   */
  readonly topics: readonly string[];
  /**
   * How often EventBridge starts the relay, whole minutes (EventBridge's rate expressions go by the
   * minute), shorter than `timeout` less 20 seconds (so 14 minutes at most).
   * @default Duration.minutes(1)
   */
  readonly schedule?: Duration;
  /**
   * Invocation timeout: longer than `schedule` and the 20 seconds an invocation may return before its
   * timeout, so the next invocation starts before this one returns and a relay is always running (two at
   * once are safe).
   * @default Duration.minutes(2)
   */
  readonly timeout?: Duration;
  /**
   * Memory in MB (128-10240).
   * @default 512
   */
  readonly memorySize?: number;
  /**
   * Retention of the function's log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * `notify`: the relay LISTENs and claims as soon as an emitting transaction commits (through RDS Proxy,
   * that connection is pinned); `poll`: it claims every `pollInterval` only.
   * @default 'notify'
   */
  readonly wake?: PostgresRelayWake;
  /**
   * The longest an idle relay waits before it claims again: the bound on an event's wait when a
   * notification is missed, or with `poll` (50 ms to 60 s, whole milliseconds).
   * @default Duration.seconds(1)
   */
  readonly pollInterval?: Duration;
}

/**
 * An invocation starts no round with less than this left, and may return then: it runs at least its
 * timeout less this. ROUND_START_RESERVE_MS in lambdas/postgres/outbox/relay-loop.ts, which loads the
 * `pg` driver, so it is not imported here; a test checks the two agree.
 */
export const RELAY_RESERVE = Duration.seconds(20);

export interface ResolvedPostgresRelaySettings {
  readonly schedule: Duration;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly wake: string;
  readonly pollInterval: Duration;
}

export function resolvePostgresRelaySettings(props: PostgresOutboxRelayProps): ResolvedPostgresRelaySettings {
  return {
    schedule: props.schedule ?? Duration.minutes(1),
    timeout: props.timeout ?? Duration.minutes(2),
    memorySize: props.memorySize ?? 512,
    wake: props.wake ?? POSTGRES_RELAY_SETTINGS.wake.default,
    pollInterval: props.pollInterval ?? Duration.millis(POSTGRES_RELAY_SETTINGS.pollIntervalMs.default),
  };
}

/** The relay's own variables (POSTGRES_RELAY_SETTINGS), as the handler reads them. */
export function postgresRelayEnvironment(s: ResolvedPostgresRelaySettings): Record<string, string> {
  return {
    [POSTGRES_RELAY_SETTINGS.wake.env]: s.wake,
    [POSTGRES_RELAY_SETTINGS.pollIntervalMs.env]: String(s.pollInterval.toMilliseconds({ integral: false })),
  };
}

export function postgresRelayProblems(
  scope: IConstruct,
  props: PostgresOutboxRelayProps,
  s: ResolvedPostgresRelaySettings,
): string[] {
  const problems: string[] = [];
  const fail = (problem: string | undefined): void => {
    if (problem !== undefined) problems.push(problem);
  };
  const { cluster, postgres } = props;
  problems.push(...postgresProblems(postgres));
  problems.push(...clusterProblems(cluster));
  if (cluster.vpc !== undefined && !sameVpc(scope, cluster.vpc, postgres.vpc)) {
    fail(
      "cluster.vpc is not postgres.vpc: the relay runs in the database's VPC; drop cluster.vpc (the brokers must be reachable from postgres.vpc)",
    );
  }
  if (cluster.vpcSubnets !== undefined) {
    fail('cluster.vpcSubnets is given: the relay runs in postgres.vpcSubnets; set the subnets there');
  }
  problems.push(...topicProblems(props.topics));
  // A rate expression is a whole number of minutes, 1 at least:
  // https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-scheduled-rule-pattern.html#eb-rate-expressions
  const scheduleMinutes = s.schedule.toMinutes({ integral: false });
  const wholeMinutes = Number.isInteger(scheduleMinutes) && scheduleMinutes >= 1;
  if (!wholeMinutes) {
    fail(
      `schedule is ${s.schedule.toSeconds({ integral: false })}s: set whole minutes, at least 1 (EventBridge's rate expressions go by the minute)`,
    );
  }
  const timeoutIsValid = timeoutProblem(s.timeout) === undefined;
  fail(timeoutProblem(s.timeout));
  const scheduleSeconds = wholeMinutes ? s.schedule.toSeconds() : 0;
  const runsAtLeast = timeoutIsValid ? s.timeout.toSeconds() - RELAY_RESERVE.toSeconds() : 0;
  if (wholeMinutes && timeoutIsValid && runsAtLeast <= scheduleSeconds) {
    fail(
      `timeout (${s.timeout.toSeconds()}s) is not longer than schedule (${scheduleSeconds}s) and the ${RELAY_RESERVE.toSeconds()}s the relay keeps in reserve: set more than ${scheduleSeconds + RELAY_RESERVE.toSeconds()}s, so the next invocation starts before this one returns and a relay is always running`,
    );
  }
  fail(memorySizeProblem(s.memorySize));
  const wake = POSTGRES_RELAY_SETTINGS.wake;
  const wakeProblem = valueProblem(wake, s.wake);
  if (wakeProblem !== undefined) fail(`wake "${s.wake}" ${wakeProblem}`);
  const poll = POSTGRES_RELAY_SETTINGS.pollIntervalMs;
  const pollMs = s.pollInterval.toMilliseconds({ integral: false });
  if (valueProblem(poll, String(pollMs)) !== undefined) {
    fail(`pollInterval is ${pollMs} ms: set whole milliseconds from ${poll.min} to ${poll.max}`);
  }
  return problems;
}

/**
 * One VPC, as far as synth can tell: the same id, or ids that resolve to the same CloudFormation value
 * (two imports of one exported id, say); two Vpc constructs of the app are two VPCs.
 */
function sameVpc(scope: IConstruct, a: ec2.IVpc, b: ec2.IVpc): boolean {
  if (a === b || a.vpcId === b.vpcId) return true;
  if (!Token.isUnresolved(a.vpcId) && !Token.isUnresolved(b.vpcId)) return false;
  const stack = Stack.of(scope);
  return JSON.stringify(stack.resolve(a.vpcId)) === JSON.stringify(stack.resolve(b.vpcId));
}
