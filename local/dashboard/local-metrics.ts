/**
 * A local run's metrics, looked up as CloudWatch would look up a widget's or an alarm's metric: the
 * handler's EMF (from the function log) by namespace, name and exact dimension set; the emulator's
 * counterparts of AWS/Lambda metrics (local/esm/mapping-metrics.ts) by name. Locally there is one function
 * and one mapping, so the AWS/Lambda dimensions (FunctionName, EventSourceMappingUUID) are taken as theirs.
 */
import { METRICS_NAMESPACE } from '../../lambdas/core/metric-names.js';
import type { EmfMetric } from './emf.js';
import type { Sample } from './statistics.js';

export interface MetricKey {
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Readonly<Record<string, string>>;
}

/** The samples of a metric; undefined when nothing local stands for it (DynamoDB's, Lambda's throttles...). */
export type MetricLookup = (key: MetricKey) => readonly Sample[] | undefined;

export interface LocalMetricsSources {
  readonly emf: readonly EmfMetric[];
  /** The emulator's samples by AWS/Lambda metric name; undefined for a metric it has no counterpart of. */
  readonly lambda: (name: string) => readonly Sample[] | undefined;
}

export function localMetricLookup({ emf, lambda }: LocalMetricsSources): MetricLookup {
  const emfNamespaces = new Set([METRICS_NAMESPACE, ...emf.map((m) => m.namespace)]);
  return (key) => {
    if (key.namespace === 'AWS/Lambda') return lambda(key.name);
    if (!emfNamespaces.has(key.namespace)) return undefined;
    return emf
      .filter(
        (m) =>
          m.namespace === key.namespace &&
          m.name === key.name &&
          sameDimensions(m.dimensions, key.dimensions),
      )
      .flatMap((m) => m.values.map((value) => ({ timeMs: m.timestampMs, value })));
  };
}

export function sameDimensions(
  a: Readonly<Record<string, string>>,
  b: Readonly<Record<string, string>>,
): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
