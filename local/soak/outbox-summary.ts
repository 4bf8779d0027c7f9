/** The outbox figures `npm run soak -- --outbox` prints (docs/fault-tolerance.md#outbox-schedules). */
import type { RelayFaultKind } from './outbox-plan.js';
import type { ScheduleResult } from './schedule-result.js';

export interface OutboxSummary {
  readonly schedules: number;
  readonly emitted: number;
  readonly publishedCopies: number;
  readonly republished: number;
  readonly quarantined: number;
  readonly relayInvocations: number;
  /** Relay faults that fired, by kind (outbox-plan.ts), and records the relay reported for retry. */
  readonly faults: Partial<Record<RelayFaultKind | 'record-reported' | 'batch-threw', number>>;
}

export function summarizeOutbox(results: readonly ScheduleResult[]): OutboxSummary {
  const withOutbox = results.filter((r) => r.outbox !== undefined);
  const sum = (pick: (r: ScheduleResult) => number) => withOutbox.reduce((n, r) => n + pick(r), 0);
  const faults: Record<string, number> = {};
  for (const result of withOutbox) {
    for (const [kind, count] of Object.entries(result.faults)) {
      if (kind.startsWith('relay:')) faults[kind.slice(6)] = (faults[kind.slice(6)] ?? 0) + count;
    }
  }
  return {
    schedules: withOutbox.length,
    emitted: sum((r) => r.outbox?.emitted ?? 0),
    publishedCopies: sum((r) => r.outbox?.publishedCopies ?? 0),
    republished: sum((r) => r.outbox?.republished ?? 0),
    quarantined: sum((r) => r.outbox?.quarantined ?? 0),
    relayInvocations: sum((r) => r.outbox?.relayInvocations ?? 0),
    faults,
  };
}

export function formatOutboxSummary(summary: OutboxSummary): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const f = (kind: keyof OutboxSummary['faults']) => n(summary.faults[kind] ?? 0);
  return [
    `outbox: ${n(summary.schedules)} schedules relayed; ${n(summary.emitted)} events emitted by committed records, ${n(
      summary.publishedCopies,
    )} messages published (${n(summary.republished)} copies republished), ${n(summary.quarantined)} quarantined (poison)`,
    `  relay: ${n(summary.relayInvocations)} invocations; crashes after produce ${f('crash-after-produce')}, after removal ${f(
      'crash-after-removal',
    )}, before checkpoint ${f('crash-before-checkpoint')}; transient produce failures ${f(
      'transient-produce',
    )}; removal SDK failures ${f('removal-failure')} (attempts); records reported for retry ${f('record-reported')}`,
  ].join('\n');
}
