import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { throwIfProblems } from './invalid-props-error.js';
import { alarmEmailProblems, alarmTopic, notifying, positiveProblems } from './monitoring/alarm-topic.js';
import { PERIOD } from './monitoring/consumer-metrics.js';
import { RELAY_METRICS } from './monitoring/relay-metric-names.js';
import {
  postgresRelayWidgets,
  RelayMetrics,
  StreamRelayMetrics,
  streamRelayWidgets,
} from './monitoring/relay-widgets.js';
import type { OutboxRelay } from './outbox-relay.js';
import { PostgresOutboxRelay } from './postgres-outbox-relay.js';

/** What a RelayMonitoring takes: the relay, where alarms go, and their thresholds. */
export interface RelayMonitoringProps {
  /**
   * The relay to watch: its function and EMF metrics, and OutboxRelay's stream mapping and failure queue
   * or PostgresOutboxRelay's schedule and database.
   */
  readonly relay: OutboxRelay | PostgresOutboxRelay;
  /**
   * @default - CloudFormation generates a name
   */
  readonly dashboardName?: string;
  /**
   * Where alarms notify (on ALARM and on OK): pass the consumers' (ConsumerMonitoring's `alarmTopic`).
   * @default - a new topic with TLS-only publishing
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * An address subscribed to a new alarm topic (it must confirm the subscription); not with `alarmTopic`.
   * @default - no subscription
   */
  readonly alarmEmail?: string;
  /**
   * Stream iterator age (the relay's lag behind the outbox's appends) that alarms, in 2 of 3 windows.
   * OutboxRelay only: PostgresOutboxRelay reads no stream.
   * @default Duration.minutes(5)
   */
  readonly iteratorAgeThreshold?: Duration;
  /**
   * Age of the oldest unpublished event the relay saw that alarms, in 2 of 3 windows.
   * @default Duration.minutes(15)
   */
  readonly pendingAgeThreshold?: Duration;
  /**
   * Function errors (whole-invocation failures) in 5 minutes that alarm.
   * @default 1
   */
  readonly functionErrorsThreshold?: number;
  /**
   * Events quarantined in 5 minutes that alarm.
   * @default 1
   */
  readonly quarantinedThreshold?: number;
  /**
   * Failed sends to Kafka per 5 minutes that alarm when they last 3 windows (a passing failure is retried).
   * @default 1
   */
  readonly publishFailuresThreshold?: number;
}

/**
 * The relay's alarms, by what they mean (docs/deploy.md#outbox-relay-alarms). Every relay has the first
 * four; the others are one kind of relay's, undefined for the other.
 */
export interface RelayAlarms {
  /** An event has waited long to be published. */
  readonly pendingAge: cloudwatch.IAlarm;
  /** Invocations failed as a whole. */
  readonly functionErrors: cloudwatch.IAlarm;
  /** Events were quarantined: they are not published. */
  readonly quarantined: cloudwatch.IAlarm;
  /** Sends to Kafka keep failing. */
  readonly publishFailures: cloudwatch.IAlarm;
  /** OutboxRelay's: it reads the outbox stream late. */
  readonly iteratorAge?: cloudwatch.IAlarm;
  /** OutboxRelay's: Lambda gave up on stream batches. */
  readonly failedBatches?: cloudwatch.IAlarm;
  /** PostgresOutboxRelay's: no invocation in 5 minutes, so nothing publishes. */
  readonly notRunning?: cloudwatch.IAlarm;
}

const atLeast = cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;
const quiet = cloudwatch.TreatMissingData.NOT_BREACHING;

type Notify = (alarm: cloudwatch.Alarm) => cloudwatch.Alarm;

/** What the alarms every relay has say, by relay: where to look and what to run. */
interface RelayRunbook {
  readonly logs: string;
  /** The flags that point `msk-inbox outbox` at the relay's outbox. */
  readonly outboxFlags: string;
  /** Another way to point it there, in the quarantined alarm's parenthesis; '' for none. */
  readonly orElse: string;
  /** What follows a failed invocation. */
  readonly afterFailure: string;
}

/**
 * One dashboard and the alarms for one outbox relay, OutboxRelay or PostgresOutboxRelay. Apart from
 * ConsumerMonitoring: a relay serves every consumer of its outbox, and its metrics are not the consumer
 * handler's.
 */
export class RelayMonitoring extends Construct {
  public readonly dashboard: cloudwatch.Dashboard;
  public readonly alarmTopic: sns.ITopic;
  public readonly alarms: RelayAlarms;

  public constructor(scope: Construct, id: string, props: RelayMonitoringProps) {
    super(scope, id);
    const { relay } = props;
    const iteratorAgeMs = (props.iteratorAgeThreshold ?? Duration.minutes(5)).toMilliseconds();
    const pendingAgeMs = (props.pendingAgeThreshold ?? Duration.minutes(15)).toMilliseconds();
    const thresholds = {
      pendingAgeMs,
      functionErrors: props.functionErrorsThreshold ?? 1,
      quarantined: props.quarantinedThreshold ?? 1,
      publishFailures: props.publishFailuresThreshold ?? 1,
    };
    throwIfProblems(`RelayMonitoring ${this.node.path} props are invalid`, [
      ...positiveProblems({
        'iteratorAgeThreshold (ms)': iteratorAgeMs,
        'pendingAgeThreshold (ms)': pendingAgeMs,
        functionErrorsThreshold: thresholds.functionErrors,
        quarantinedThreshold: thresholds.quarantined,
        publishFailuresThreshold: thresholds.publishFailures,
      }),
      ...(relay instanceof PostgresOutboxRelay && props.iteratorAgeThreshold !== undefined
        ? ['iteratorAgeThreshold is given for a PostgresOutboxRelay, which reads no stream: remove it']
        : []),
      ...alarmEmailProblems(props.alarmEmail),
      ...(props.alarmEmail !== undefined && props.alarmTopic !== undefined
        ? [
            'alarmEmail is given with alarmTopic: subscribe the address to your topic yourself, or drop alarmTopic',
          ]
        : []),
    ]);

    this.alarmTopic = alarmTopic(this, props.alarmTopic, 'MSK Inbox outbox relay alarms', props.alarmEmail);
    const notify = notifying(this.alarmTopic);
    const logs = `the relay's log group ${relay.logGroup.logGroupName}`;
    const region = Stack.of(this).region;
    let rows: cloudwatch.IWidget[][];
    // The operator's commands, ready to paste (docs/operate.md#outbox); a test runs each with --help.
    if (relay instanceof PostgresOutboxRelay) {
      const metrics = new RelayMetrics(relay.function);
      this.alarms = {
        ...this.commonAlarms(metrics, notify, thresholds, {
          logs,
          // A Postgres outbox is found through the stack's Postgres outputs (addOperatorOutputs of a
          // consumer of the schema), or a connection string.
          outboxFlags: `--stack ${Stack.of(relay).stackName} --region ${region}`,
          orElse: `; without the stack's Postgres outputs, --postgres URL --schema ${relay.postgres.schema}`,
          afterFailure: 'the next scheduled invocation takes its keys up',
        }),
        notRunning: notify(
          metrics.invocations().createAlarm(this, 'RelayNotRunning', {
            alarmDescription: `The Postgres outbox relay has not been invoked for ${PERIOD.toMinutes()} minutes: nothing publishes the outbox's events (they wait in the outbox tables; none is lost). First: check that the rule ${relay.scheduleRule.ruleName} is enabled, and the function's throttles and reserved concurrency; search ${logs}.`,
            threshold: 1,
            comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
            evaluationPeriods: 1,
            // A period without an invocation has no datapoint: missing data is the relay not running.
            treatMissingData: cloudwatch.TreatMissingData.BREACHING,
          }),
        ),
      };
      rows = postgresRelayWidgets(metrics, relay, this.alarmList(), { pendingAgeMs });
    } else {
      const metrics = new StreamRelayMetrics(relay);
      const outboxFlags = `--outbox-table ${relay.outbox.tableName} --region ${region}`;
      const common = this.commonAlarms(metrics, notify, thresholds, {
        logs,
        outboxFlags,
        orElse: '',
        afterFailure: 'Lambda retries or bisects the batch',
      });
      this.alarms = {
        iteratorAge: notify(
          metrics.iteratorAge().createAlarm(this, 'RelayIteratorAge', {
            alarmDescription: `The outbox relay reads the stream ${iteratorAgeMs} ms or more behind the appends: events are published late (none is lost; they stay in the outbox). First: check RelayFunctionErrors and RelayPublishFailures; if both are quiet, raise parallelizationFactor or batchSize.`,
            threshold: iteratorAgeMs,
            comparisonOperator: atLeast,
            evaluationPeriods: 3,
            datapointsToAlarm: 2,
            treatMissingData: quiet,
          }),
        ),
        ...common,
        failedBatches: notify(
          metrics.failedBatches().createAlarm(this, 'RelayFailedBatches', {
            alarmDescription: `Lambda gave up on outbox stream batches (retries or maxRecordAge spent): their events are still in the outbox table ${relay.outbox.tableName}, unpublished until their key is appended to again. First: read the queue ${relay.failureQueue.queueName} (shards and sequence numbers); fix the cause, then npx msk-inbox outbox list ${outboxFlags} (each key's NEXT EVENT id) and npx msk-inbox outbox republish ID ${outboxFlags} for each (docs/operate.md#outbox).`,
            threshold: 1,
            comparisonOperator: atLeast,
            evaluationPeriods: 1,
            treatMissingData: quiet,
          }),
        ),
      };
      rows = streamRelayWidgets(metrics, relay, this.alarmList(), { iteratorAgeMs, pendingAgeMs });
    }

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });
    for (const row of rows) this.dashboard.addWidgets(...row);
  }

  private alarmList(): cloudwatch.IAlarm[] {
    return Object.values(this.alarms).filter((alarm) => alarm !== undefined);
  }

  /** The alarms every relay has, on its EMF metrics and its function's errors. */
  private commonAlarms(
    metrics: RelayMetrics,
    notify: Notify,
    thresholds: {
      readonly pendingAgeMs: number;
      readonly functionErrors: number;
      readonly quarantined: number;
      readonly publishFailures: number;
    },
    runbook: RelayRunbook,
  ): Pick<RelayAlarms, 'pendingAge' | 'functionErrors' | 'quarantined' | 'publishFailures'> {
    const { logs, outboxFlags } = runbook;
    return {
      pendingAge: notify(
        metrics.relay(RELAY_METRICS.oldestPendingAgeMs, 'Maximum').createAlarm(this, 'RelayPendingAge', {
          alarmDescription: `An appended event has waited ${thresholds.pendingAgeMs} ms or more to be published. First: search ${logs} for level ERROR; check the brokers and RelayPublishFailures.`,
          threshold: thresholds.pendingAgeMs,
          comparisonOperator: atLeast,
          evaluationPeriods: 3,
          datapointsToAlarm: 2,
          treatMissingData: quiet,
        }),
      ),
      functionErrors: notify(
        metrics.functionErrors().createAlarm(this, 'RelayFunctionErrors', {
          alarmDescription: `The outbox relay failed as a whole (crash, timeout, out of memory): ${runbook.afterFailure}. First: search ${logs} for level ERROR and "Task timed out".`,
          threshold: thresholds.functionErrors,
          comparisonOperator: atLeast,
          evaluationPeriods: 1,
          treatMissingData: quiet,
        }),
      ),
      quarantined: notify(
        metrics.relay(RELAY_METRICS.eventsQuarantined, 'Sum').createAlarm(this, 'RelayQuarantined', {
          alarmDescription: `The outbox relay quarantined events it cannot publish for good (too large for the topic, a topic it may not write or that does not exist): they are NOT published. First: npx msk-inbox outbox quarantined ${outboxFlags} (each event's reason and Kafka's error${runbook.orElse}); fix the cause (the relay's topics, the topic's config), then npx msk-inbox outbox republish ID ${outboxFlags} (docs/operate.md#outbox).`,
          threshold: thresholds.quarantined,
          comparisonOperator: atLeast,
          evaluationPeriods: 1,
          treatMissingData: quiet,
        }),
      ),
      publishFailures: notify(
        metrics.relay(RELAY_METRICS.publishFailures, 'Sum').createAlarm(this, 'RelayPublishFailures', {
          alarmDescription: `Sends to Kafka have failed for 15 minutes (each is retried): the brokers are unreachable or refuse the relay. First: search ${logs}; check the security groups, the IAM bootstrap brokers and the topic ARNs in the relay's role.`,
          threshold: thresholds.publishFailures,
          comparisonOperator: atLeast,
          evaluationPeriods: 3,
          datapointsToAlarm: 3,
          treatMissingData: quiet,
        }),
      ),
    };
  }
}
