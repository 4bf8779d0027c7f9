/** The demo's closing report; its last line starts with `verified:` or `mismatch:`. */
import { firedAlarms } from '../dashboard/local-dashboard.js';
import { displayPath } from '../project-paths.js';
import type { DemoStore } from './demo-options.js';
import type { DemoResult } from './run-demo.js';
import type { Verification } from './verify.js';

const STORE_LINES: Readonly<Record<DemoStore, string>> = {
  dynamodb: 'DynamoDB Local: the inbox row and the order items in one TransactWriteItems',
  postgres: 'Postgres (PGlite, embedded): the inbox row and the order SQL in one transaction',
  redis:
    "Redis (redis-server): a key per event claims its call, an HTTP POST to a receiver here with the event's dedupKey as Idempotency-Key",
};

export function formatSummary(result: DemoResult): string {
  const m = (name: string) => result.functionMetrics.get(name) ?? 0;
  const seconds = result.processingMs / 1000;
  const rate = seconds > 0 ? Math.round(result.producedRecords / seconds) : 0;
  const { esm, verification } = result;
  const rows: [string, string][] = [
    [
      'source',
      `${result.sourceDescription}, ${result.partitions} partitions${result.sourceNote === undefined ? '' : ` (${result.sourceNote})`}`,
    ],
    ['store', STORE_LINES[result.options.store]],
    [
      'events',
      `${result.events} (${result.producedRecords} records: +${result.producerDuplicates} producer duplicates; ${result.poisonRecords} poison)${result.options.format === 'avro' ? ', Avro values under a Confluent header' : ''}`,
    ],
    [
      'deliveries',
      `${esm.deliveredRecords} records in ${esm.invocations} invocations (${result.coldStarts} cold starts)`,
    ],
    [
      'processed',
      `${applied(verification)}; the function reported ${m('Processed')} (a crashed invocation reports nothing)`,
    ],
    [
      'duplicates',
      `${m('Duplicates')} deliveries acked without effect (producer duplicates and redeliveries)`,
    ],
    [
      'quarantined',
      `${verification.quarantineRows} quarantine rows${reasonsOf(verification.quarantineReasons)}; the function reported ${m('Quarantined')} (a redelivered poison record counts again)`,
    ],
    [
      'redeliveries',
      `${esm.redeliveredRecords} records (reported ${esm.reportedRecords}, in-flight ${m('InFlight')}, failed ${m('Failed')})`,
    ],
    [
      'crashes',
      `${esm.crashes} (faults also: ${esm.duplicateDeliveries} duplicate deliveries, ${esm.overlappingInvocations} fenced overlapping invocations, ${esm.timeouts} timeouts, ${esm.functionErrors} function errors)${crashPoint(result.options.store)}`,
    ],
    ['on-failure', `${esm.destinationRecords} records in ${displayPath(result.destinationPath)}`],
    [
      'wall time',
      `${(result.totalMs / 1000).toFixed(1)} s (setup ${(result.setupMs / 1000).toFixed(1)} s, processing ${seconds.toFixed(1)} s)`,
    ],
    ['records/s', `${rate}`],
    ['function log', displayPath(result.functionLogPath)],
    ['dashboard', displayPath(result.dashboard.path)],
    ['alarms', alarmsLine(result)],
    ['traces', tracesLine(result)],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`);
  const verdict = verification.ok
    ? `verified: ${effectsVerified(verification)}; ${result.poisonRecords} poison records quarantined; every partition committed to its end`
    : `mismatch: ${[...verification.problems, ...(esm.lastFunctionError ? [`last function error: ${esm.lastFunctionError}`] : [])].join(' | ')}`;
  return ['', 'summary', ...lines, '', verdict].join('\n');
}

/**
 * Where the crashes struck: an environment dies at a DynamoDB write (local/lambda-runtime/), so on another
 * store each crash comes once its batch's work is done and only the response is lost.
 */
function crashPoint(store: DemoStore): string {
  return store === 'dynamodb'
    ? ''
    : `; each after its batch's work: the crash point is a DynamoDB write, and this store makes none`;
}

/** The effects the inbox rows stand for. */
function applied({ checked, completedRows }: Verification): string {
  return checked.kind === 'orders'
    ? `${completedRows} effects applied (inbox rows COMPLETED)`
    : `${completedRows} calls completed (Redis rows COMPLETED), ${checked.calls} taken by the receiver`;
}

function effectsVerified({ checked }: Verification): string {
  return checked.kind === 'orders'
    ? `${checked.accounts} account balances and ${checked.orders} order totals match each unique valid event applied once`
    : `each of the ${checked.events} unique valid events made its call exactly once (one per Idempotency-Key at the receiver), its Redis row COMPLETED`;
}

/** Which of the stack's alarms would have fired over this run, and when (local/dashboard/alarm-evaluation.ts). */
function alarmsLine(result: DemoResult): string {
  const fired = firedAlarms(result.dashboard.alarms);
  const period = Math.max(...result.dashboard.alarms.map((a) => a.alarm.periodSeconds));
  const notEvaluated = result.dashboard.alarms.filter((a) => a.kind === 'no-local-counterpart').length;
  const list =
    fired.length === 0
      ? 'none would have fired'
      : `would have fired: ${fired.map((a) => `${a.name} at +${(a.atMs / 1000).toFixed(1)} s`).join(', ')}`;
  return `${list} (${period} s periods; ${notEvaluated} of ${result.dashboard.alarms.length} have no local counterpart)`;
}

/** ` (invalid-event 3, undecodable 2)`: the quarantine rows by reason, most first. */
function reasonsOf(reasons: ReadonlyMap<string, number>): string {
  if (reasons.size === 0) return '';
  const sorted = [...reasons].sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  return ` (${sorted.map(([reason, count]) => `${reason} ${count}`).join(', ')})`;
}

/** What the run traced, and its slowest record's waterfall in words (the dashboard draws it). */
function tracesLine(result: DemoResult): string {
  const traces = result.dashboard.traces;
  if (traces === undefined || traces.recordSpans === 0) {
    return "none: this store's sample handler has no tracing option (docs/tracing.md)";
  }
  const slowest = traces.waterfalls[0];
  const shape = slowest?.rows
    .filter((row) => row.role !== 'producer' && row.role !== 'invocation')
    .map(
      (row) =>
        `${row.name} ${(row.endMs - row.startMs).toFixed(1)} ms${row.detail ? ` (${row.detail})` : ''}`,
    )
    .join(' > ');
  return `${traces.spans} spans, ${traces.recordSpans} record spans; slowest ${slowest?.record} ${slowest?.outcome}: ${shape}`;
}
