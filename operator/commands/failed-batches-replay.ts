/** `msk-inbox failed-batches replay`: each record of failed batches through the consumer again, recorded. */

import { parseCommandLine } from '../cli/parse-flags.js';
import { ProgressPrinter } from '../cli/progress-printer.js';
import { UserError } from '../cli/user-error.js';
import { resolveBatchId, shortIds } from '../failed-batches/batch-ids.js';
import { nameOf } from '../failed-batches/failed-batch.js';
import { replayBatch } from '../failed-batches/replay-batch.js';
import { type BatchRecordResult, countOutcomes } from '../failed-batches/replay-log.js';
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
import { tableText } from '../table-text.js';
import { batchSource, byTime, readBatches, SOURCE_FLAGS, SOURCE_HELP } from './failed-batches-source.js';
import type { OperatorIo } from './operator-io.js';

export const FAILED_REPLAY_HELP = `Usage: msk-inbox failed-batches replay (ID... | --all) (--dir DIR | --bucket NAME) (--function NAME | --stack NAME | --handler FILE) [flags]

Runs each record of the failed batches through the consumer again, once the cause is fixed: a one-record
MSK event in the batch's envelope, under the record's own coordinates, so the inbox dedups it as it would
a redelivery (replaying twice applies nothing twice). Batches oldest first; in each, partition by
partition in offset order, and a partition stops at its first record that fails (the records after it,
in this batch and in later ones, are not sent, so its order is kept). Each record comes to one of:

  applied      the effect ran
  duplicate    its key was applied already (before the batch failed, or by an earlier replay)
  skipped      the consumer acks it without an effect (another event type), or it was discarded
  acked        the consumer acked it, and the tool cannot derive its key (e.g. an Avro value): applied,
               a duplicate or skipped
  quarantined  the consumer quarantined it (\`msk-inbox quarantine list\` shows it), or it was already
  failed       the consumer reported it for retry or threw
  past-dedup-window
               older than the consumer's dedup window: not sent (see --past-dedup-window)
  not-sent     a record before it in its partition failed

The replay is recorded in the inbox table (row <consumer>!failed-batch#<object name>: when, by whom,
how often, each record's outcome); \`list\` and \`show\` print it.

  --all            every failed batch of the source
  --dry-run        say what each record would be (a duplicate, sent, held in the quarantine); change nothing
${PAST_WINDOW_HELP}

${INVOKER_HELP}

Exit code 0 when every record was applied, a duplicate, skipped or acked (or with --dry-run), 1 otherwise.

${SOURCE_HELP}

${COMMON_HELP}`;

export async function failedBatchesReplay(argv: readonly string[], io: OperatorIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    {
      ...COMMON_FLAGS,
      ...SOURCE_FLAGS,
      ...REPLAY_FLAGS,
    },
    'msk-inbox failed-batches replay --help',
  );
  if (values.help) {
    io.print(FAILED_REPLAY_HELP);
    return 0;
  }
  const all = values.all === true;
  if (all && positionals.length > 0) throw new UserError('replay: give ids or --all, not both');
  if (!all && positionals.length === 0) {
    throw new UserError('replay: which batches? give ids (as list prints them) or --all');
  }
  const dryRun = values['dry-run'] === true;
  const target = await resolveOperatorTarget(values);
  const source = batchSource(values, target);
  const objects = await source.list();
  // Every id is checked before anything is sent: a typo stops the whole command.
  const chosen = all
    ? objects
    : [...new Set(positionals.map((id) => resolveBatchId(id, objects, source.describe())))];
  const { batches, skipped } = await readBatches(source, chosen, io);
  const invoke = await replayInvoker(values, target, dryRun);
  const ids = shortIds(objects.map((object) => nameOf(object.key)));
  const settings = await consumerSettingsFor(values, target);
  // One partition's stop holds for every batch of this run: a later batch's records of it are not sent.
  const stopped = new Map<string, number>();
  const progress = new ProgressPrinter(process.stderr);
  let shownAtMs = io.nowMs();
  const replayed: { id: string; key: string; records: BatchRecordResult[] }[] = [];
  for (const batch of batches.sort(byTime)) {
    const id = ids.get(batch.name) ?? batch.name;
    const records = await withInboxAdvice(target.inbox, () =>
      replayBatch(target.inbox, batch, {
        invoke,
        settings,
        dryRun,
        pastDedupWindow: values['past-dedup-window'] === true,
        nowMs: io.nowMs,
        stopped,
        onRecord: (done, total) => {
          if (values.json || io.nowMs() - shownAtMs < 1_000) return;
          progress.status(
            `replaying batch ${replayed.length + 1}/${batches.length} (${id}): record ${done}/${total}`,
          );
          shownAtMs = io.nowMs();
        },
      }),
    );
    if (!dryRun) {
      const replay = { atMs: io.nowMs(), by: io.user(), results: records };
      await withInboxAdvice(target.inbox, () =>
        target.inbox.recordReplay({ name: batch.name, objectKey: batch.object.key }, replay),
      );
    }
    replayed.push({ id, key: batch.object.key, records });
  }
  progress.finish();
  if (values.json) {
    io.print(
      JSON.stringify(
        {
          consumer: target.consumer,
          source: source.describe(),
          dryRun,
          batches: replayed.map((batch) => ({ ...batch, counts: countOutcomes(batch.records) })),
        },
        null,
        2,
      ),
    );
  } else if (replayed.length === 0) {
    io.print('nothing to replay');
  } else {
    io.print(
      tableText(
        ['BATCH', 'RECORD', 'OUTCOME', 'DETAIL'],
        replayed.flatMap((batch) =>
          batch.records.map((r) => [batch.id, `${r.partition}@${r.offset}`, r.outcome, r.detail]),
        ),
      ),
    );
    const counts = countOutcomes(replayed.flatMap((batch) => batch.records));
    const summary = Object.entries(counts)
      .map(([outcome, count]) => `${count} ${outcome}`)
      .join(', ');
    io.print(`\n${replayed.length} batch(es)${dryRun ? ', dry run' : ''}: ${summary}`);
  }
  // An object named by its id that is not an on-failure record was not replayed: say so in the exit code.
  if (!all && skipped.length > 0) return 1;
  if (dryRun) return 0;
  return replayed.every((batch) => batch.records.every((r) => ACKED_OUTCOMES.includes(r.outcome))) ? 0 : 1;
}
