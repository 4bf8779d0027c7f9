/**
 * The CloudWatch dashboard of the sample stack, drawn from a local run (docs/local.md#the-dashboard): the
 * handler's EMF from the function log and the emulator's counterparts of the mapping's metrics, in
 * per-second buckets; the alarms evaluated over the run with their own periods.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { MappingMetrics } from '../esm/mapping-metrics.js';
import { displayPath } from '../project-paths.js';
import { readTraceFile } from '../tracing/trace-file.js';
import { isRecordSpan, type RecordWaterfall, slowestRecordWaterfalls } from '../tracing/waterfall.js';
import { type AlarmEvaluation, evaluateAlarms, type RunSpan } from './alarm-evaluation.js';
import { parseEmfLog } from './emf.js';
import { localMetricLookup } from './local-metrics.js';
import { renderDashboardHtml } from './render-html.js';
import type { SampleDashboard } from './sample-dashboard.js';
import { secondsOf, widgetData } from './widget-data.js';

export interface LocalRun extends RunSpan {
  /** The function's stdout and stderr, EMF lines among them. */
  readonly functionLogPath: string;
  readonly mapping: MappingMetrics;
  /** Lines about the run for the page's header. */
  readonly facts: readonly string[];
  /** The run's spans (OTLP/JSON lines), when it traced: the slowest records are drawn from them. */
  readonly tracesPath?: string;
}

/** Records whose traces the page draws. */
export const TRACED_RECORDS_SHOWN = 5;

export interface DashboardTraces {
  readonly spans: number;
  readonly recordSpans: number;
  readonly waterfalls: readonly RecordWaterfall[];
}

export interface LocalDashboard {
  readonly path: string;
  readonly alarms: readonly AlarmEvaluation[];
  /** EMF lines CloudWatch would have refused (none expected). */
  readonly emfProblems: readonly string[];
  /** What the traces section drew, when the run traced. */
  readonly traces: DashboardTraces | undefined;
}

export async function writeLocalDashboard(
  dashboard: SampleDashboard,
  run: LocalRun,
  path: string,
): Promise<LocalDashboard> {
  const { metrics, problems } = parseEmfLog(await readFile(run.functionLogPath, 'utf8'));
  const lookup = localMetricLookup({ emf: metrics, lambda: (name) => run.mapping.samples(name) });
  const alarms = evaluateAlarms(dashboard.alarms, lookup, run);
  const traces = run.tracesPath === undefined ? undefined : tracesOf(run.tracesPath);
  const html = renderDashboardHtml({
    title: 'MSK Inbox dashboard, drawn from a local run',
    facts: [
      ...run.facts,
      'Charts show per-second buckets of the run (CloudWatch shows 5-minute periods). Alarms are evaluated with their real period, statistic, threshold and datapoints to alarm, every second over the data so far.',
    ],
    widgets: widgetData(dashboard.widgets, lookup, run, alarms),
    alarms,
    seconds: secondsOf(run).map((_, index) => index),
    ...(traces
      ? {
          traces: {
            waterfalls: traces.waterfalls,
            note: `${traces.spans} spans exported by the function (and the demo's producer) to ${displayPath(run.tracesPath ?? '')}, ${traces.recordSpans} of them records; the ${traces.waterfalls.length} slowest, each on its invocation's time axis.`,
          },
        }
      : {}),
  });
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, html);
  return { path, alarms, emfProblems: problems, traces };
}

function tracesOf(path: string): DashboardTraces {
  const spans = readTraceFile(path);
  return {
    spans: spans.length,
    recordSpans: spans.filter(isRecordSpan).length,
    waterfalls: slowestRecordWaterfalls(spans, TRACED_RECORDS_SHOWN),
  };
}

/** The alarms that would have fired, in the order they did. */
export function firedAlarms(alarms: readonly AlarmEvaluation[]): { name: string; atMs: number }[] {
  return alarms
    .flatMap((a) =>
      a.kind === 'evaluated' && a.firedAtMs !== undefined ? [{ name: a.alarm.name, atMs: a.firedAtMs }] : [],
    )
    .sort((a, b) => a.atMs - b.atMs);
}
