import { Duration, Stack, Token, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { throwIfProblems } from './invalid-props-error.js';
import { RELAY_METRICS } from './monitoring/relay-metric-names.js';
import { RelayMetrics, relayWidgets } from './monitoring/relay-widgets.js';
import type { OutboxRelay } from './outbox-relay.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** What a RelayMonitoring takes: the relay, where alarms go, and their thresholds. */
export interface RelayMonitoringProps {
  /** The relay to watch: its function, stream mapping, failure queue and EMF metrics. */
  readonly relay: OutboxRelay;
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
   * @default Duration.minutes(5)
   */
  readonly iteratorAgeThreshold?: Duration;
  /**
   * Age of the oldest unpublished event the relay saw that alarms, in 2 of 3 windows.
   * @default Duration.minutes(15)
   */
  readonly pendingAgeThreshold?: Duration;
  /**
   * Function errors (whole-batch failures) in 5 minutes that alarm.
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

/** The relay's alarms, by what they mean (docs/deploy.md#outbox-relay-alarms). */
export interface RelayAlarms {
  readonly iteratorAge: cloudwatch.IAlarm;
  readonly pendingAge: cloudwatch.IAlarm;
  readonly functionErrors: cloudwatch.IAlarm;
  readonly quarantined: cloudwatch.IAlarm;
  readonly publishFailures: cloudwatch.IAlarm;
  readonly failedBatches: cloudwatch.IAlarm;
}

/**
 * One dashboard and the alarms for one outbox relay. Apart from ConsumerMonitoring: a relay serves every
 * consumer that shares its outbox table, and its metrics are not the consumer handler's.
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
    const errorsThreshold = props.functionErrorsThreshold ?? 1;
    const quarantinedThreshold = props.quarantinedThreshold ?? 1;
    const failuresThreshold = props.publishFailuresThreshold ?? 1;
    const positive = (name: string, value: number): string[] =>
      Number.isFinite(value) && value > 0 ? [] : [`${name} is ${value}: set a number above 0`];
    throwIfProblems(`RelayMonitoring ${this.node.path} props are invalid`, [
      ...positive('iteratorAgeThreshold (ms)', iteratorAgeMs),
      ...positive('pendingAgeThreshold (ms)', pendingAgeMs),
      ...positive('functionErrorsThreshold', errorsThreshold),
      ...positive('quarantinedThreshold', quarantinedThreshold),
      ...positive('publishFailuresThreshold', failuresThreshold),
      ...(props.alarmEmail === undefined ||
      Token.isUnresolved(props.alarmEmail) ||
      EMAIL.test(props.alarmEmail)
        ? []
        : [`alarmEmail "${props.alarmEmail}" is not an email address`]),
      ...(props.alarmEmail !== undefined && props.alarmTopic !== undefined
        ? [
            'alarmEmail is given with alarmTopic: subscribe the address to your topic yourself, or drop alarmTopic',
          ]
        : []),
    ]);
    const metrics = new RelayMetrics(relay);

    this.alarmTopic = props.alarmTopic ?? this.createTopic(props.alarmEmail);
    const notify = (alarm: cloudwatch.Alarm): cloudwatch.Alarm => {
      alarm.addAlarmAction(new actions.SnsAction(this.alarmTopic));
      alarm.addOkAction(new actions.SnsAction(this.alarmTopic));
      return alarm;
    };
    const atLeast = cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;
    const quiet = cloudwatch.TreatMissingData.NOT_BREACHING;
    const logs = `the relay's log group ${relay.logGroup.logGroupName}`;
    // The operator's commands, ready to paste (docs/operate.md#outbox); a test runs each with --help.
    const outboxFlags = `--outbox-table ${relay.outbox.tableName} --region ${Stack.of(this).region}`;

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
      pendingAge: notify(
        metrics.relay(RELAY_METRICS.oldestPendingAgeMs, 'Maximum').createAlarm(this, 'RelayPendingAge', {
          alarmDescription: `An appended event has waited ${pendingAgeMs} ms or more to be published. First: search ${logs} for level ERROR; check the brokers and RelayPublishFailures.`,
          threshold: pendingAgeMs,
          comparisonOperator: atLeast,
          evaluationPeriods: 3,
          datapointsToAlarm: 2,
          treatMissingData: quiet,
        }),
      ),
      functionErrors: notify(
        metrics.functionErrors().createAlarm(this, 'RelayFunctionErrors', {
          alarmDescription: `The outbox relay failed as a whole (crash, timeout, out of memory): Lambda retries or bisects the batch. First: search ${logs} for level ERROR and "Task timed out".`,
          threshold: errorsThreshold,
          comparisonOperator: atLeast,
          evaluationPeriods: 1,
          treatMissingData: quiet,
        }),
      ),
      quarantined: notify(
        metrics.relay(RELAY_METRICS.eventsQuarantined, 'Sum').createAlarm(this, 'RelayQuarantined', {
          alarmDescription: `The outbox relay quarantined events it cannot publish for good (too large for the topic, a topic it may not write or that does not exist): they are NOT published. First: npx msk-inbox outbox quarantined ${outboxFlags} (each event's reason and Kafka's error); fix the cause (the relay's topics, the topic's config), then npx msk-inbox outbox republish ID ${outboxFlags} (docs/operate.md#outbox).`,
          threshold: quarantinedThreshold,
          comparisonOperator: atLeast,
          evaluationPeriods: 1,
          treatMissingData: quiet,
        }),
      ),
      publishFailures: notify(
        metrics.relay(RELAY_METRICS.publishFailures, 'Sum').createAlarm(this, 'RelayPublishFailures', {
          alarmDescription: `Sends to Kafka have failed for 15 minutes (each is retried): the brokers are unreachable or refuse the relay. First: search ${logs}; check the security groups, the IAM bootstrap brokers and the topic ARNs in the relay's role.`,
          threshold: failuresThreshold,
          comparisonOperator: atLeast,
          evaluationPeriods: 3,
          datapointsToAlarm: 3,
          treatMissingData: quiet,
        }),
      ),
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

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });
    for (const row of relayWidgets(metrics, relay, Object.values(this.alarms), {
      iteratorAgeMs,
      pendingAgeMs,
    })) {
      this.dashboard.addWidgets(...row);
    }
  }

  private createTopic(email: string | undefined): sns.Topic {
    // Unencrypted on purpose, as ConsumerMonitoring's: notifications carry alarm names and states, and
    // CloudWatch cannot publish to a topic under the AWS-managed SNS key.
    const topic = new sns.Topic(this, 'AlarmTopic', {
      enforceSSL: true,
      displayName: 'MSK Inbox outbox relay alarms',
    });
    if (email !== undefined) {
      const subscription = topic.addSubscription(new subscriptions.EmailSubscription(email));
      Validations.of(subscription).acknowledge({
        id: 'Serverless-SNSRedrivePolicy',
        reason:
          'An email subscription: SNS retries email delivery itself, and the alarm state stays in CloudWatch; a dead-letter queue would hold notifications nobody reads.',
      });
    }
    return topic;
  }
}
