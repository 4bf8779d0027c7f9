import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { OUTCOME_METRICS } from '../lambdas/core/metric-names.js';
import { throwIfProblems } from './invalid-props-error.js';
import type { KafkaConsumer } from './kafka-consumer.js';
import { alarmEmailProblems, alarmTopic, notifying, positiveProblems } from './monitoring/alarm-topic.js';
import { ConsumerMetrics, PERIOD } from './monitoring/consumer-metrics.js';
import {
  alarmStatusWidget,
  batchDurationWidget,
  inboxEventsWidget,
  lambdaConcurrencyWidget,
  lambdaDurationWidget,
  lambdaHealthWidget,
  mappingErrorsWidget,
  mappingEventsWidget,
  offsetLagWidget,
  recordLatencyWidget,
  recordOutcomesWidget,
  tableWidgets,
  titleWidget,
} from './monitoring/consumer-widgets.js';
import { databaseWidgets } from './monitoring/database-widgets.js';
import { quarantinedRunbook, recordsDroppedRunbook } from './monitoring/operator-commands.js';

export {
  ESM_ERROR_COUNT_METRICS,
  ESM_EVENT_COUNT_METRICS,
  ESM_KAFKA_METRICS,
} from './monitoring/consumer-metrics.js';

export interface ConsumerMonitoringProps {
  /** The consumer to watch: its function, event source mapping and EMF metrics. */
  readonly consumer: KafkaConsumer;
  /**
   * The DynamoDB tables it writes, by label (the inbox and the effect's tables): throttles, system errors,
   * capacity. Required with a DynamoDB inbox; with a Postgres one the database's widgets come from the
   * consumer itself.
   * @default - none (a Postgres inbox only)
   */
  readonly tables?: Readonly<Record<string, dynamodb.ITable>>;
  /**
   * @default - CloudFormation generates a name
   */
  readonly dashboardName?: string;
  /**
   * Where alarms notify (on ALARM and on OK).
   * @default - a new topic with TLS-only publishing
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * An address subscribed to the alarm topic (it must confirm the subscription).
   * @default - no subscription
   */
  readonly alarmEmail?: string;
  /**
   * Offset lag above which a growing lag alarms (records behind the newest offset).
   * @default 1000
   */
  readonly offsetLagThreshold?: number;
  /**
   * Quarantined records in 5 minutes that alarm.
   * @default 1
   */
  readonly quarantinedThreshold?: number;
  /**
   * Function errors (whole-batch failures: crashes, timeouts) in 5 minutes that alarm.
   * @default 1
   */
  readonly functionErrorsThreshold?: number;
  /**
   * Read and write throttle events of one table in 5 minutes that alarm (in 2 of 3 windows).
   * @default 1
   */
  readonly dynamoDbThrottleThreshold?: number;
  /**
   * Fraction of the function timeout at which the maximum duration alarms.
   * @default 0.8
   */
  readonly durationAlarmRatio?: number;
}

/** The consumer's alarms, by what they mean. */
export interface ConsumerAlarms {
  readonly offsetLagGrowing: cloudwatch.IAlarm;
  readonly recordsDropped: cloudwatch.IAlarm;
  readonly quarantined: cloudwatch.IAlarm;
  readonly functionErrors: cloudwatch.IAlarm;
  /** One per table, by the label given in `tables`. */
  readonly dynamoDbThrottles: Readonly<Record<string, cloudwatch.IAlarm>>;
  readonly durationNearTimeout: cloudwatch.IAlarm;
}

/**
 * One CloudWatch dashboard for one consumer (the handler's EMF outcomes and timings, offset lag, the event
 * source mapping's counts and errors, Lambda health, and DynamoDB's or the Postgres database's) and the
 * alarms that matter, sent to SNS.
 */
export class ConsumerMonitoring extends Construct {
  public readonly dashboard: cloudwatch.Dashboard;
  public readonly alarmTopic: sns.ITopic;
  public readonly alarms: ConsumerAlarms;

  public constructor(scope: Construct, id: string, props: ConsumerMonitoringProps) {
    super(scope, id);
    const offsetLagThreshold = props.offsetLagThreshold ?? 1000;
    const quarantinedThreshold = props.quarantinedThreshold ?? 1;
    const functionErrorsThreshold = props.functionErrorsThreshold ?? 1;
    const throttleThreshold = props.dynamoDbThrottleThreshold ?? 1;
    const durationRatio = props.durationAlarmRatio ?? 0.8;
    const tablesByLabel = props.tables ?? {};
    throwIfProblems(`ConsumerMonitoring ${this.node.path} props are invalid`, [
      ...positiveProblems({
        offsetLagThreshold,
        quarantinedThreshold,
        functionErrorsThreshold,
        dynamoDbThrottleThreshold: throttleThreshold,
      }),
      ...(durationRatio > 0 && durationRatio <= 1
        ? []
        : [`durationAlarmRatio is ${durationRatio}: set a fraction of the timeout above 0 and at most 1`]),
      ...alarmEmailProblems(props.alarmEmail),
      ...(Object.keys(tablesByLabel).length > 0 || props.consumer.inboxTable === undefined
        ? []
        : ['tables is empty: pass the inbox table and the tables the effect writes']),
      ...Object.keys(tablesByLabel)
        .filter((label) => !/^[A-Za-z0-9]+$/.test(label))
        .map((label) => `tables has the label "${label}": use letters and digits only`),
    ]);

    const { consumer } = props;
    const timeoutMs = consumer.timeout.toMilliseconds();
    const metrics = new ConsumerMetrics(consumer);

    // Alarms
    // The email is subscribed to the topic given too (RelayMonitoring refuses that pair instead).
    this.alarmTopic = alarmTopic(this, props.alarmTopic, 'MSK Inbox alarms', props.alarmEmail);
    const notify = notifying(this.alarmTopic);

    const offsetLagGrowing = notify(
      new cloudwatch.MathExpression({
        // RATE: change per second from the previous datapoint; > 0 means the lag grew over the last period.
        // https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/using-metric-math.html
        expression: `IF(lag > ${offsetLagThreshold} AND RATE(lag) > 0, 1, 0)`,
        usingMetrics: { lag: metrics.offsetLag() },
        period: PERIOD,
        label: 'Offset lag above threshold and growing',
      }).createAlarm(this, 'OffsetLagGrowing', {
        alarmDescription: `Offset lag is above ${offsetLagThreshold} and has grown for 15 minutes: the consumer falls behind. First: check Errors, Throttles and DurationNearTimeout; if healthy, raise maximumPollers (up to the partition count) or batchSize.`,
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    const recordsDropped = notify(
      new cloudwatch.MathExpression({
        expression: 'FILL(dropped, 0) + FILL(delivered, 0)',
        usingMetrics: {
          dropped: metrics.mapping('DroppedEventCount'),
          delivered: metrics.mapping('OnFailureDestinationDeliveredEventCount'),
        },
        period: PERIOD,
        label: 'Records dropped or sent to the failure bucket',
      }).createAlarm(this, 'RecordsDropped', {
        alarmDescription: `Records exhausted their retries or passed maxRecordAge: they were NOT applied. ${recordsDroppedRunbook(consumer)}`,
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    const quarantined = notify(
      metrics.handler(OUTCOME_METRICS.quarantined).createAlarm(this, 'Quarantined', {
        alarmDescription: `Records were quarantined (undecodable, no dedup key, schema-invalid, payload conflict or rejected by a business rule): acknowledged but not applied. ${quarantinedRunbook(consumer)}`,
        threshold: quarantinedThreshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    const functionErrors = notify(
      metrics.functionErrors().createAlarm(this, 'FunctionErrors', {
        alarmDescription:
          'The function failed as a whole (crash, timeout, out of memory): Lambda retries or bisects the whole batch. First: search the function log group for level ERROR and "Task timed out".',
        threshold: functionErrorsThreshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    const tables = Object.entries(tablesByLabel);
    const dynamoDbThrottles = tables.map(([label, table]): [string, cloudwatch.Alarm] => [
      label,
      notify(
        new cloudwatch.MathExpression({
          expression: 'FILL(reads, 0) + FILL(writes, 0)',
          usingMetrics: metrics.tableThrottleEvents(table),
          period: PERIOD,
          label: 'Throttle events',
        }).createAlarm(this, `DynamoDbThrottles${label}`, {
          alarmDescription: `DynamoDB throttled the ${label} table in 2 of the last 3 windows: records slow down, fail and are retried. First: look for a hot partition key (CloudWatch Contributor Insights) or an account/table throughput quota.`,
          threshold: throttleThreshold,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 3,
          datapointsToAlarm: 2,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      ),
    ]);
    const durationThresholdMs = Math.round(timeoutMs * durationRatio);
    const durationNearTimeout = notify(
      metrics.functionDuration('Maximum').createAlarm(this, 'DurationNearTimeout', {
        alarmDescription: `An invocation ran ${durationThresholdMs} ms or more of its ${timeoutMs} ms timeout: a timeout retries the whole batch. First: compare BatchDuration with BatchRecords; lower batchSize or raise timeout (and memorySize).`,
        threshold: durationThresholdMs,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    this.alarms = {
      offsetLagGrowing,
      recordsDropped,
      quarantined,
      functionErrors,
      dynamoDbThrottles: Object.fromEntries(dynamoDbThrottles),
      durationNearTimeout,
    };

    // Dashboard: rows of named widgets (monitoring/consumer-widgets.ts).
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(titleWidget(consumer.consumerName));
    this.dashboard.addWidgets(
      recordOutcomesWidget(metrics),
      inboxEventsWidget(metrics),
      alarmStatusWidget([
        offsetLagGrowing,
        recordsDropped,
        quarantined,
        functionErrors,
        ...dynamoDbThrottles.map(([, alarm]) => alarm),
        durationNearTimeout,
      ]),
    );
    this.dashboard.addWidgets(
      batchDurationWidget(metrics, timeoutMs),
      recordLatencyWidget(metrics),
      offsetLagWidget(metrics, offsetLagThreshold),
    );
    this.dashboard.addWidgets(
      mappingEventsWidget(metrics),
      mappingErrorsWidget(metrics),
      lambdaHealthWidget(metrics),
    );
    this.dashboard.addWidgets(
      lambdaDurationWidget(metrics, timeoutMs, durationThresholdMs),
      lambdaConcurrencyWidget(metrics),
    );
    this.dashboard.addWidgets(...tables.flatMap(([label, table]) => tableWidgets(metrics, label, table)));
    if (consumer.postgres !== undefined) {
      this.dashboard.addWidgets(...databaseWidgets(consumer.postgres.database));
    }
  }
}
