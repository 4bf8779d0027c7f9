/** What `npm start -- --pipeline` prints at the end: the run, then `verified:` or `mismatch:`. */
import type { PipelineResult } from './run-pipeline.js';

export function formatPipelineSummary(result: PipelineResult, sourceNote: string | undefined): string {
  const { verification: v, invocations, crashes } = result;
  const lines = [
    '',
    `pipeline: ${result.orders} order records on ${result.sourceDescription}, ${(result.totalMs / 1000).toFixed(1)} s`,
    ...(sourceNote ? [`  note: ${sourceNote}`] : []),
    `  order-consumer    ${invocations.orders} invocations, ${crashes.orders} crashed`,
    `  outbox relay      ${invocations.relay} invocations, ${crashes.relay} crashed after producing, before their checkpoint`,
    `  payment-consumer  ${invocations.payments} invocations, ${crashes.payments} crashed`,
    `  payments: ${v.payments} emitted; ${v.republished} copies published again (same event_id), absorbed by the payment inbox`,
  ];
  if (v.ok) {
    lines.push(
      `verified: every payment published at least once, in its account's commit order, and applied exactly once in that order; the outbox is empty`,
    );
  } else {
    lines.push('mismatch:', ...v.problems.map((problem) => `  - ${problem}`));
  }
  return lines.join('\n');
}
