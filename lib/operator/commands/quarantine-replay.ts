/** `msk-inbox quarantine replay`: each record through the consumer again, its outcome recorded on the row. */
import { parseCommandLine } from '../../cli/parse-flags.js';
import { ProgressPrinter } from '../../cli/progress-printer.js';
import { UserError } from '../../cli/user-error.js';
import { withAwsAdvice } from '../aws-errors.js';
import { type Invoke, loadLocalHandler } from '../local-handler.js';
import { COMMON_FLAGS, COMMON_HELP, operatorTarget } from '../operator-target.js';
import { dedupPolicyFrom } from '../quarantined-record.js';
import { type ReplayOutcome, type ReplayResult, replayRow } from '../replay-record.js';
import { tableText } from '../table-text.js';
import type { OperatorIo } from './operator-io.js';
import { selectRows } from './select-rows.js';

export const REPLAY_HELP = `Usage: msk-inbox quarantine replay (ID... | --all [--reason R]) --handler FILE [flags]

Runs each quarantined record through the consumer again, once its code or data is fixed: a one-record
MSK event built from the row, under the record's own coordinates, so the inbox dedups it as it would a
redelivery (replaying twice applies nothing twice). The outcome is recorded on the row (replayed_at,
replay_outcome, replay_attempts):

  applied            the effect ran; the row leaves the index (kept, status RESOLVED)
  duplicate          its key was applied already; the row leaves the index (RESOLVED)
  skipped            the consumer acks it without an effect; the row leaves the index (RESOLVED)
  quarantined-again  it stays in the index with the new reason
  failed             the consumer reported it for retry or threw; the row stays as it was

  --handler FILE   a module exporting the Lambda handler (\`handler\`), run in this process with the
                   function's environment: INBOX_TABLE_NAME, CONSUMER_NAME, and for --endpoint
                   AWS_ENDPOINT_URL_DYNAMODB; the consumer's other variables come from your shell
  --function NAME  the deployed function, through Lambda's Invoke API: coming in phase 2
  --all            every row of the index (with --reason R, those with that reason)
  --dry-run        say what would be sent, change nothing

Exit code 0 when every record left the quarantine (or with --dry-run), 1 when some did not.

${COMMON_HELP}`;

const LEFT_QUARANTINE: readonly ReplayOutcome[] = ['applied', 'duplicate', 'skipped', 'would-replay'];

export async function quarantineReplay(argv: readonly string[], io: OperatorIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    {
      ...COMMON_FLAGS,
      all: { type: 'boolean' },
      reason: { type: 'string' },
      handler: { type: 'string' },
      function: { type: 'string' },
      'dry-run': { type: 'boolean' },
    },
    'msk-inbox quarantine replay --help',
  );
  if (values.help) {
    io.print(REPLAY_HELP);
    return 0;
  }
  if (values.function !== undefined) {
    throw new UserError('--function is not there yet (phase 2): replay through --handler FILE for now');
  }
  const dryRun = values['dry-run'] === true;
  const handlerFile = values.handler as string | undefined;
  if (handlerFile === undefined && !dryRun) {
    throw new UserError('replay needs --handler FILE: the module exporting your Lambda handler');
  }
  const target = operatorTarget(values);
  const rows = await selectRows(
    target,
    positionals,
    values.all === true,
    values.reason as string | undefined,
    'replay',
  );
  const invoke: Invoke =
    handlerFile === undefined
      ? async () => {
          throw new Error('a dry run invokes nothing');
        }
      : await loadLocalHandler(handlerFile, target);
  const policy = dedupPolicyFrom(process.env);
  const progress = new ProgressPrinter(process.stderr);
  const results: ReplayResult[] = [];
  for (const row of rows) {
    if (rows.length > 1 && !values.json)
      progress.status(`replaying ${results.length + 1}/${rows.length}: ${row.id}`);
    results.push(
      await withAwsAdvice(target, () => replayRow(target, row, { invoke, policy, dryRun, nowMs: io.nowMs })),
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
