/** `msk-inbox quarantine replay`: each record through the consumer again, its outcome recorded on the row. */

import { parseCommandLine } from '../cli/parse-flags.js';
import { ProgressPrinter } from '../cli/progress-printer.js';
import {
  consumerSettingsFor,
  INVOKER_HELP,
  PAST_WINDOW_HELP,
  REPLAY_FLAGS,
  replayInvoker,
} from '../invoke-target.js';
import { withInboxAdvice } from '../operator-inbox.js';
import { COMMON_FLAGS, COMMON_HELP, resolveOperatorTarget } from '../operator-target.js';
import { ACKED_OUTCOMES } from '../replay-outcomes.js';
import { type ReplayResult, replayRow } from '../replay-record.js';
import { tableText } from '../table-text.js';
import type { OperatorIo } from './operator-io.js';
import { selectRows } from './select-rows.js';

export const REPLAY_HELP = `Usage: msk-inbox quarantine replay (ID... | --all [--reason R]) (--function NAME | --stack NAME | --handler FILE) [flags]

Runs each quarantined record through the consumer again, once its code or data is fixed: a one-record
MSK event built from the row, under the record's own coordinates, so the inbox dedups it as it would a
redelivery (replaying twice applies nothing twice). The outcome is recorded on the row (replayed_at,
replay_outcome, replay_attempts):

  applied            the effect ran; the row leaves the index (kept, status RESOLVED)
  duplicate          its key was applied already; the row leaves the index (RESOLVED)
  skipped            the consumer acks it without an effect; the row leaves the index (RESOLVED)
  acked              the consumer acked it and no key is known (none on the row, none derivable):
                     applied, a duplicate or skipped; the row leaves the index (RESOLVED)
  past-dedup-window  older than the consumer's dedup window: not sent, the row stays as it was
  quarantined-again  it stays in the index with the new reason
  failed             the consumer reported it for retry, threw, or the function answered an error;
                     the row stays as it was

  --all            every row of the index (with --reason R, those with that reason)
  --dry-run        say what would be sent, change nothing (with --function, Lambda checks that you
                   may invoke it: a DryRun invocation)
${PAST_WINDOW_HELP}

${INVOKER_HELP}

Exit code 0 when every record left the quarantine (or with --dry-run), 1 when some did not.

${COMMON_HELP}`;

const LEFT_QUARANTINE: readonly string[] = [...ACKED_OUTCOMES, 'would-replay'];

export async function quarantineReplay(argv: readonly string[], io: OperatorIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    {
      ...COMMON_FLAGS,
      ...REPLAY_FLAGS,
      reason: { type: 'string' },
    },
    'msk-inbox quarantine replay --help',
  );
  if (values.help) {
    io.print(REPLAY_HELP);
    return 0;
  }
  const dryRun = values['dry-run'] === true;
  const target = await resolveOperatorTarget(values);
  const rows = await selectRows(
    target,
    positionals,
    values.all === true,
    values.reason as string | undefined,
    'replay',
  );
  const invoke = await replayInvoker(values, target, dryRun);
  const settings = await consumerSettingsFor(values, target);
  const pastDedupWindow = values['past-dedup-window'] === true;
  const progress = new ProgressPrinter(process.stderr);
  const results: ReplayResult[] = [];
  for (const row of rows) {
    if (rows.length > 1 && !values.json)
      progress.status(`replaying ${results.length + 1}/${rows.length}: ${row.id}`);
    results.push(
      await withInboxAdvice(target.inbox, () =>
        replayRow(target.inbox, row, { invoke, settings, dryRun, pastDedupWindow, nowMs: io.nowMs }),
      ),
    );
  }
  progress.finish();
  if (values.json) {
    io.print(JSON.stringify({ consumer: target.consumer, dryRun, results }, null, 2));
  } else if (results.length === 0) {
    io.print('nothing to replay');
  } else {
    io.print(
      tableText(
        ['ID', 'OUTCOME', 'DETAIL'],
        results.map((r) => [r.id, r.outcome, r.detail]),
      ),
    );
  }
  return results.every((result) => LEFT_QUARANTINE.includes(result.outcome)) ? 0 : 1;
}
