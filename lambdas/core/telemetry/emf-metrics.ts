/**
 * The consumer's metrics in CloudWatch's embedded metric format: stored through an invocation, written as
 * one JSON line at its end, in the shape Powertools Metrics writes (namespace, the `service` dimension,
 * `_aws.Timestamp`; docs/design.md#logs-and-metrics), without the 12 KB of its code that every cold start
 * compiled. A team that wants Powertools passes its own Metrics: it satisfies ConsumerMetrics as it is.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
 */

/** The units the consumer's metrics have (lambdas/core/metric-names.ts), as EMF spells them. */
export type MetricUnitName = 'Count' | 'Milliseconds';

/** What the consumer asks of a metrics writer: Powertools' Metrics satisfies it, so does EmfMetrics. */
export interface ConsumerMetrics {
  /** Stores one value of a metric (lambdas/core/metric-names.ts) until the invocation's end. */
  addMetric(name: string, unit: MetricUnitName, value: number): void;
  /** Writes what was added since the last call: once per invocation, after the batch or its failure. */
  publishStoredMetrics(): void;
}

/** The spec's limits: at most 100 metrics in one directive, at most 100 values in one metric's array. */
const MAX_METRICS_PER_LINE = 100;
const MAX_VALUES_PER_METRIC = 100;

/** Powertools' extended booleans (`1`, `yes`, `on`...). */
const TRUTHY = new Set(['1', 'y', 'yes', 't', 'true', 'on']);

type Environment = Readonly<Record<string, string | undefined>>;

/** POWERTOOLS_METRICS_DISABLED decides when set; else POWERTOOLS_DEV turns metrics off, as in Powertools. */
export function metricsDisabledBy(env: Environment): boolean {
  const flag = env.POWERTOOLS_METRICS_DISABLED ?? env.POWERTOOLS_DEV ?? '';
  return TRUTHY.has(flag.trim().toLowerCase());
}

export class EmfMetrics implements ConsumerMetrics {
  readonly #namespace: string;
  readonly #service: string;
  readonly #disabled: boolean;
  readonly #stored = new Map<string, { readonly unit: MetricUnitName; readonly values: number[] }>();

  constructor(options: {
    readonly namespace: string;
    readonly serviceName: string;
    readonly disabled: boolean;
  }) {
    this.#namespace = options.namespace;
    this.#service = options.serviceName;
    this.#disabled = options.disabled;
  }

  addMetric(name: string, unit: MetricUnitName, value: number): void {
    let stored = this.#stored.get(name);
    if (stored === undefined) {
      if (this.#stored.size === MAX_METRICS_PER_LINE) this.publishStoredMetrics();
      stored = { unit, values: [] };
      this.#stored.set(name, stored);
    }
    stored.values.push(value);
    if (stored.values.length === MAX_VALUES_PER_METRIC) this.publishStoredMetrics();
  }

  publishStoredMetrics(): void {
    if (this.#stored.size === 0) return;
    const metrics = [...this.#stored];
    this.#stored.clear();
    if (this.#disabled) return;
    const line: Record<string, unknown> = {
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [
          {
            Namespace: this.#namespace,
            Dimensions: [['service']],
            Metrics: metrics.map(([name, { unit }]) => ({ Name: name, Unit: unit })),
          },
        ],
      },
      service: this.#service,
    };
    // One value as a number, several as an array: CloudWatch takes either.
    for (const [name, { values }] of metrics) line[name] = values.length === 1 ? values[0] : values;
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
}
