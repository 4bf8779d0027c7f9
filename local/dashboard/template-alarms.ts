/**
 * The alarms of a synthesized template, as CloudWatch evaluates them: one metric and a statistic, or metric
 * math over metrics (the datapoints of the `ReturnData` expression), compared with a threshold.
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-cloudwatch-alarm.html
 */
import { resolvePlaceholders, type TemplateResources } from './dashboard-body.js';

/** A metric as an alarm or a widget names it. */
export interface MetricQuery {
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly stat: string;
}

export interface TemplateAlarm {
  readonly logicalId: string;
  /** The construct's id (`Quarantined`), from the template's `aws:cdk:path`; else the logical id. */
  readonly name: string;
  readonly periodSeconds: number;
  readonly threshold: number;
  readonly comparison: string;
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
  readonly treatMissingData: 'breaching' | 'notBreaching' | 'ignore' | 'missing';
  /**
   * `EvaluationWindow`: `sliding` (the default) or `wall-clock` (periods aligned to UTC's clock).
   * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarm-evaluation-window.html
   */
  readonly evaluationWindow: 'sliding' | 'wall-clock';
  /** Metric math whose ids are the keys of `metrics`; a single-metric alarm reads its one metric as `m`. */
  readonly expression: string;
  readonly metrics: Readonly<Record<string, MetricQuery>>;
}

interface AlarmProperties {
  Namespace?: string;
  MetricName?: string;
  Dimensions?: { Name: string; Value: unknown }[];
  Statistic?: string;
  ExtendedStatistic?: string;
  Period?: number;
  Threshold: number;
  ComparisonOperator: string;
  EvaluationPeriods: number;
  DatapointsToAlarm?: number;
  TreatMissingData?: TemplateAlarm['treatMissingData'];
  EvaluationWindow?: { SlidingWindow?: unknown; WallClockWindow?: { Timezone?: string } };
  Metrics?: {
    Id: string;
    Expression?: string;
    ReturnData?: boolean;
    Period?: number;
    MetricStat?: {
      Metric: { Namespace: string; MetricName: string; Dimensions?: { Name: string; Value: unknown }[] };
      Period: number;
      Stat: string;
    };
  }[];
}

export function templateAlarms(
  resources: TemplateResources & Record<string, { Metadata?: Record<string, unknown> }>,
): TemplateAlarm[] {
  return Object.entries(resources)
    .filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm')
    .map(([logicalId, resource]) => {
      const p = resource.Properties as unknown as AlarmProperties;
      const path = resource.Metadata?.['aws:cdk:path'];
      const name = typeof path === 'string' ? (path.split('/').at(-2) ?? logicalId) : logicalId;
      const common = {
        logicalId,
        name,
        threshold: p.Threshold,
        comparison: p.ComparisonOperator,
        evaluationPeriods: p.EvaluationPeriods,
        datapointsToAlarm: p.DatapointsToAlarm ?? p.EvaluationPeriods,
        // CloudFormation's default. https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarms-and-missing-data.html
        treatMissingData: p.TreatMissingData ?? 'missing',
        evaluationWindow: evaluationWindowOf(logicalId, p.EvaluationWindow),
      };
      if (p.Metrics === undefined) {
        return {
          ...common,
          periodSeconds: p.Period ?? 60,
          expression: 'm',
          metrics: {
            m: {
              namespace: p.Namespace ?? '',
              name: p.MetricName ?? '',
              dimensions: dimensionsOf(p.Dimensions),
              stat: p.Statistic ?? p.ExtendedStatistic ?? 'Average',
            },
          },
        };
      }
      const returned = p.Metrics.filter((m) => m.ReturnData !== false);
      const [result] = returned;
      if (returned.length !== 1 || result === undefined) {
        throw new Error(`alarm ${logicalId}: expected one datapoint series to return`);
      }
      const metrics: Record<string, MetricQuery> = {};
      let periodSeconds = result.Period ?? 0;
      for (const m of p.Metrics) {
        if (!m.MetricStat) continue;
        periodSeconds ||= m.MetricStat.Period;
        metrics[m.Id] = {
          namespace: m.MetricStat.Metric.Namespace,
          name: m.MetricStat.Metric.MetricName,
          dimensions: dimensionsOf(m.MetricStat.Metric.Dimensions),
          stat: m.MetricStat.Stat,
        };
      }
      return { ...common, periodSeconds, expression: result.Expression ?? result.Id, metrics };
    });
}

function dimensionsOf(dimensions: { Name: string; Value: unknown }[] | undefined): Record<string, string> {
  return Object.fromEntries((dimensions ?? []).map((d) => [d.Name, resolvePlaceholders(d.Value)]));
}

function evaluationWindowOf(
  logicalId: string,
  window: AlarmProperties['EvaluationWindow'],
): TemplateAlarm['evaluationWindow'] {
  const wallClock = window?.WallClockWindow;
  if (wallClock === undefined) return 'sliding';
  const zone = wallClock.Timezone;
  // A time zone moves the boundaries of hour and day periods (and of shorter ones by its offset).
  if (zone !== undefined && zone !== 'UTC') {
    throw new Error(`alarm ${logicalId}: a wall clock window in ${zone} is not evaluated locally (UTC only)`);
  }
  return 'wall-clock';
}
