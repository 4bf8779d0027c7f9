/**
 * Reads CloudWatch embedded metric format (EMF) log lines as CloudWatch Logs would: each metric directive
 * of `_aws.CloudWatchMetrics` yields its metrics once per dimension set, with values and dimension values
 * taken from the root members. A line CloudWatch would not extract metrics from is reported, not guessed at.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
 */

/** One metric of one dimension set, as CloudWatch stores it from one EMF line. */
export interface EmfMetric {
  readonly namespace: string;
  readonly name: string;
  /** Dimension name to value; empty for a metric without dimensions. */
  readonly dimensions: Readonly<Record<string, string>>;
  readonly unit: string | undefined;
  /** A member may hold an array of values (the spec allows up to 100). */
  readonly values: readonly number[];
  /** Epoch ms: `_aws.Timestamp`. */
  readonly timestampMs: number;
}

export type EmfLine =
  | { readonly kind: 'metrics'; readonly metrics: readonly EmfMetric[] }
  /** JSON with an `_aws` member that breaks the spec: CloudWatch extracts nothing from it. */
  | { readonly kind: 'invalid'; readonly problem: string }
  /** Not EMF (a log line, a blank line): nothing to extract. */
  | { readonly kind: 'not-emf' };

const MAX_DIMENSIONS_PER_SET = 30;

export function parseEmfLine(line: string): EmfLine {
  const text = line.trim();
  if (!text.startsWith('{')) return { kind: 'not-emf' };
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return { kind: 'not-emf' };
  }
  return parseEmfObject(root);
}

/** The same, for a log line already parsed as JSON. */
export function parseEmfObject(root: unknown): EmfLine {
  if (!isObject(root) || !('_aws' in root)) return { kind: 'not-emf' };
  const aws = root._aws;
  if (!isObject(aws)) return invalid('_aws is not an object');
  if (typeof aws.Timestamp !== 'number') return invalid('_aws.Timestamp is not a number');
  if (!Array.isArray(aws.CloudWatchMetrics)) return invalid('_aws.CloudWatchMetrics is not an array');
  const metrics: EmfMetric[] = [];
  for (const directive of aws.CloudWatchMetrics as unknown[]) {
    if (!isObject(directive)) return invalid('a metric directive is not an object');
    const { Namespace, Dimensions, Metrics } = directive;
    if (typeof Namespace !== 'string' || Namespace === '') return invalid('a directive has no Namespace');
    if (!Array.isArray(Dimensions) || !Array.isArray(Metrics)) {
      return invalid(`a directive of ${Namespace} lacks Dimensions or Metrics arrays`);
    }
    const dimensionSets: Record<string, string>[] = [];
    for (const set of Dimensions as unknown[]) {
      if (!Array.isArray(set) || set.length > MAX_DIMENSIONS_PER_SET) {
        return invalid(`a dimension set of ${Namespace} is not an array of at most 30 names`);
      }
      const dimensions: Record<string, string> = {};
      for (const name of set as unknown[]) {
        if (typeof name !== 'string') return invalid(`a dimension name of ${Namespace} is not a string`);
        const value = root[name];
        // A dimension's root member must be a string.
        if (typeof value !== 'string') return invalid(`dimension ${name} has no string value at the root`);
        dimensions[name] = value;
      }
      dimensionSets.push(dimensions);
    }
    for (const definition of Metrics as unknown[]) {
      if (!isObject(definition) || typeof definition.Name !== 'string') {
        return invalid(`a metric definition of ${Namespace} has no Name`);
      }
      const values = numbers(root[definition.Name]);
      if (values === undefined) return invalid(`metric ${definition.Name} has no numeric value at the root`);
      const unit = typeof definition.Unit === 'string' ? definition.Unit : undefined;
      for (const dimensions of dimensionSets) {
        metrics.push({
          namespace: Namespace,
          name: definition.Name,
          dimensions,
          unit,
          values,
          timestampMs: aws.Timestamp,
        });
      }
    }
  }
  return { kind: 'metrics', metrics };
}

/** Every metric of every EMF line of a log, and the lines CloudWatch would have refused. */
export function parseEmfLog(text: string): { metrics: EmfMetric[]; problems: string[] } {
  const metrics: EmfMetric[] = [];
  const problems: string[] = [];
  for (const line of text.split('\n')) {
    const parsed = parseEmfLine(line);
    if (parsed.kind === 'metrics') metrics.push(...parsed.metrics);
    if (parsed.kind === 'invalid') problems.push(parsed.problem);
  }
  return { metrics, problems };
}

function numbers(value: unknown): number[] | undefined {
  const values = Array.isArray(value) ? value : [value];
  return values.length > 0 && values.every((v) => typeof v === 'number' && Number.isFinite(v))
    ? (values as number[])
    : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(problem: string): EmfLine {
  return { kind: 'invalid', problem };
}
