/**
 * The CloudWatch dashboard of a synthesized template, read as CloudWatch reads its DashboardBody: widgets
 * on a 24-column grid, each metric an array `[namespace, name, dim1, value1, ..., {options}]` or a math
 * expression `[{ expression, id, label }]`.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/CloudWatch-Dashboard-Body-Structure.html
 *
 * The body is an `Fn::Join` with references in it (the function's name, the mapping's UUID, the alarms'
 * ARNs): each is replaced by a placeholder naming the template's logical id, so a reference can be traced
 * back to its resource (an alarm widget's ARN to its alarm).
 */

export interface DashboardMetric {
  readonly kind: 'metric';
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Readonly<Record<string, string>>;
  /** CloudWatch's default is Average. */
  readonly stat: string;
  readonly label: string;
  readonly id: string | undefined;
  readonly visible: boolean;
  readonly axis: 'left' | 'right';
}

export interface DashboardExpression {
  readonly kind: 'expression';
  readonly expression: string;
  readonly label: string;
  readonly id: string | undefined;
  readonly visible: boolean;
  readonly axis: 'left' | 'right';
}

export type WidgetSeries = DashboardMetric | DashboardExpression;

export interface WidgetPlacement {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export type DashboardWidget = WidgetPlacement &
  (
    | { readonly type: 'text'; readonly title: undefined; readonly markdown: string }
    | {
        readonly type: 'metric';
        readonly title: string;
        readonly series: readonly WidgetSeries[];
        readonly periodSeconds: number;
        readonly annotations: readonly { readonly label: string; readonly value: number }[];
      }
    | { readonly type: 'alarm'; readonly title: string; readonly alarmLogicalIds: readonly string[] }
    /** A kind of widget the local page does not draw (log queries, single values...). */
    | { readonly type: 'other'; readonly title: string | undefined; readonly rawType: string }
  );

/** A template's resources, as `cdk synth` writes them. */
export type TemplateResources = Readonly<
  Record<string, { readonly Type: string; readonly Properties?: Record<string, unknown> }>
>;

const REF_PREFIX = 'ref:';
const ATTRIBUTE_PREFIX = 'attr:';

/** A reference to a resource, as it stands in a resolved body: `ref:<logicalId>`. */
export function refPlaceholder(logicalId: string): string {
  return `${REF_PREFIX}${logicalId}`;
}

/** The only dashboard of a template, resolved and parsed. */
export function dashboardOf(resources: TemplateResources): DashboardWidget[] {
  const dashboards = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
  if (dashboards.length !== 1) throw new Error(`expected one dashboard, found ${dashboards.length}`);
  return parseDashboardBody(resolvePlaceholders(dashboards[0]?.Properties?.DashboardBody));
}

/** Fn::Join, Ref and Fn::GetAtt with placeholders in place of what CloudFormation would fill in. */
export function resolvePlaceholders(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) throw new Error(`cannot resolve ${String(value)}`);
  const intrinsic = value as Record<string, unknown>;
  if ('Ref' in intrinsic) return refPlaceholder(String(intrinsic.Ref));
  if ('Fn::GetAtt' in intrinsic) {
    const [logicalId, attribute] = intrinsic['Fn::GetAtt'] as [string, string];
    return `${ATTRIBUTE_PREFIX}${logicalId}.${attribute}`;
  }
  if ('Fn::Join' in intrinsic) {
    const [separator, parts] = intrinsic['Fn::Join'] as [string, unknown[]];
    return parts.map(resolvePlaceholders).join(separator);
  }
  throw new Error(`cannot resolve ${JSON.stringify(value)}`);
}

export function parseDashboardBody(body: string): DashboardWidget[] {
  const parsed = JSON.parse(body) as { widgets?: RawWidget[] };
  return (parsed.widgets ?? []).map(parseWidget);
}

interface RawWidget {
  type: string;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  properties?: Record<string, unknown>;
}

function parseWidget(raw: RawWidget): DashboardWidget {
  // The body structure's defaults: width 6, height 6.
  const placement = { x: raw.x ?? 0, y: raw.y ?? 0, width: raw.width ?? 6, height: raw.height ?? 6 };
  const properties = raw.properties ?? {};
  const title = typeof properties.title === 'string' ? properties.title : undefined;
  if (raw.type === 'text') {
    return { ...placement, type: 'text', title: undefined, markdown: String(properties.markdown ?? '') };
  }
  if (raw.type === 'alarm') {
    const arns = (properties.alarms as string[] | undefined) ?? [];
    return {
      ...placement,
      type: 'alarm',
      title: title ?? 'Alarms',
      alarmLogicalIds: arns.map((arn) => arn.replace(ATTRIBUTE_PREFIX, '').replace(/\.Arn$/, '')),
    };
  }
  if (raw.type === 'metric') {
    const annotations =
      (properties.annotations as { horizontal?: { label?: string; value: number }[] } | undefined)
        ?.horizontal ?? [];
    return {
      ...placement,
      type: 'metric',
      title: title ?? '',
      series: parseSeries((properties.metrics as unknown[][] | undefined) ?? []),
      periodSeconds: typeof properties.period === 'number' ? properties.period : 300,
      annotations: annotations.map((a) => ({ label: a.label ?? '', value: a.value })),
    };
  }
  return { ...placement, type: 'other', title, rawType: raw.type };
}

function parseSeries(rows: readonly unknown[][]): WidgetSeries[] {
  const series: WidgetSeries[] = [];
  let previous: unknown[] = [];
  for (const row of rows) {
    const last = row.at(-1);
    const options = (typeof last === 'object' && last !== null ? last : {}) as Record<string, unknown>;
    const fields = options === last ? row.slice(0, -1) : row;
    const common = {
      id: typeof options.id === 'string' ? options.id : undefined,
      visible: options.visible !== false,
      axis: options.yAxis === 'right' ? ('right' as const) : ('left' as const),
    };
    if (typeof options.expression === 'string') {
      series.push({
        kind: 'expression',
        expression: options.expression,
        label: String(options.label ?? options.expression),
        ...common,
      });
      continue;
    }
    // "." repeats the item at the same position of the row above.
    const resolved = fields.map((field, index) => (field === '.' ? previous[index] : field)).map(String);
    previous = resolved;
    const [namespace = '', name = '', ...pairs] = resolved;
    const dimensions: Record<string, string> = {};
    for (let index = 0; index + 1 < pairs.length; index += 2) {
      dimensions[pairs[index] as string] = pairs[index + 1] as string;
    }
    series.push({
      kind: 'metric',
      namespace,
      name,
      dimensions,
      stat: typeof options.stat === 'string' ? options.stat : 'Average',
      label: String(options.label ?? name),
      ...common,
    });
  }
  return series;
}
