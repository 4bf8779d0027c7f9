/** `msk-inbox failed-batches list`: the batches the mapping gave up on, newest first, and their replays. */

import { parseCommandLine, positiveIntegerFlag } from '../cli/parse-flags.js';
import { UserError } from '../cli/user-error.js';
import { type ConsumerSettings, pastDedupWindow, shellSettings } from '../consumer-settings.js';
import { shortIds } from '../failed-batches/batch-ids.js';
import { type FailedBatch, nameOf } from '../failed-batches/failed-batch.js';
import type { ReplayLog } from '../failed-batches/replay-log.js';
import { withInboxAdvice } from '../operator-inbox.js';
import { COMMON_FLAGS, COMMON_HELP, resolveOperatorTarget } from '../operator-target.js';
import { bytesText, tableText, whenText } from '../table-text.js';
import { batchSource, byTime, readBatches, SOURCE_FLAGS, SOURCE_HELP } from './failed-batches-source.js';
import type { OperatorIo } from './operator-io.js';
import { parseSince } from './quarantine-list.js';

export const FAILED_LIST_HELP = `Usage: msk-inbox failed-batches list (--dir DIR | --bucket NAME) [--since T] [--limit N] [flags]

Lists the batches the event source mapping sent to its on-failure destination, newest first: id, when
it gave up, why (RetryAttemptsExhausted, MaximumPayloadSizeExceeded, ...), the partitions and offsets,
records, payload size, approximate invoke count, and whether the batch was replayed (when, how often,
the outcome counts of the last replay). Records older than the dedup window (DEDUP_TTL_SECONDS in
this shell, else 7 days) are counted as "past window": replay sends them only with --past-dedup-window.
An object that is not an on-failure record is named and skipped.

  --since T    only batches given up since T: an ISO time (2026-11-30T22:00Z) or an age (30m, 6h, 2d)
  --limit N    show N batches at most (default 50; the total covers every match)

${SOURCE_HELP}

${COMMON_HELP}`;

const DEFAULT_LIMIT = 50;

export async function failedBatchesList(argv: readonly string[], io: OperatorIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    { ...COMMON_FLAGS, ...SOURCE_FLAGS, since: { type: 'string' }, limit: { type: 'string' } },
    'msk-inbox failed-batches list --help',
  );
  if (values.help) {
    io.print(FAILED_LIST_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UserError(`list takes no ids (got ${positionals[0]}): use show ID`);
  const limit = positiveIntegerFlag('limit', values.limit as string | undefined, DEFAULT_LIMIT);
  const sinceMs = values.since === undefined ? undefined : parseSince(String(values.since), io.nowMs());
  const target = await resolveOperatorTarget(values);
  const source = batchSource(values, target);
  const objects = await source.list();
  const ids = shortIds(objects.map((object) => nameOf(object.key)));
  // An object is written after its batch was given up: an older one holds nothing since T.
  const recent = objects.filter((object) => sinceMs === undefined || object.lastModifiedMs >= sinceMs);
  const { batches, skipped } = await readBatches(source, recent, io);
  const matching = batches
    .filter((batch) => sinceMs === undefined || batch.timestampMs >= sinceMs)
    .sort((a, b) => byTime(b, a));
  const shown = matching.slice(0, limit);
  // The shell's settings: list invokes nothing, so it does not read the function's (docs/operate.md).
  const settings = shellSettings();
  const listed = [];
  for (const batch of shown) {
    const replay = await withInboxAdvice(target.inbox, () => target.inbox.readReplayLog(batch.name));
    const past = pastWindowCount(batch, settings, io.nowMs());
    listed.push(listedBatch(batch, ids.get(batch.name) ?? batch.name, replay, past));
  }
  if (values.json) {
    const where = source.describe();
    io.print(JSON.stringify({ source: where, total: matching.length, skipped, batches: listed }, null, 2));
    return 0;
  }
  if (matching.length === 0) {
    io.print(`no failed batches in ${source.describe()}${sinceMs === undefined ? '' : ' since then'}`);
    return 0;
  }
  io.print(
    tableText(
      ['ID', 'FAILED', 'CONDITION', 'PARTITIONS', 'RECORDS', 'SIZE', 'INVOKES', 'REPLAYED'],
      listed.map((batch) => [
        batch.id,
        whenText(batch.failedAtMs),
        batch.condition,
        batch.partitions.map((p) => `${p.partition}@${p.firstOffset}..${p.lastOffset}`).join(' '),
        batch.pastDedupWindow > 0
          ? `${batch.records} (${batch.pastDedupWindow} past window)`
          : String(batch.records),
        bytesText(batch.payloadBytes),
        String(batch.approximateInvokeCount),
        replayText(batch.replay),
      ]),
    ),
  );
  const more = shown.length < matching.length ? ` (${shown.length} shown: --limit)` : '';
  const notRecords = skipped.length > 0 ? `; ${skipped.length} other object(s) skipped` : '';
  const counted = `${matching.length} failed batch${matching.length === 1 ? '' : 'es'}`;
  io.print(`\n${counted} in ${source.describe()}${more}${notRecords}`);
  return 0;
}

/** Records older than the dedup window: a replay does not send them without --past-dedup-window. */
function pastWindowCount(batch: FailedBatch, settings: ConsumerSettings, nowMs: number): number {
  return batch.partitions
    .flatMap((p) => p.records)
    .filter((record) => pastDedupWindow(record.timestamp, settings, nowMs)).length;
}

function listedBatch(batch: FailedBatch, id: string, replay: ReplayLog | undefined, past: number) {
  return {
    id,
    key: batch.object.key,
    failedAtMs: batch.timestampMs,
    failedAt: new Date(batch.timestampMs).toISOString(),
    condition: batch.condition,
    approximateInvokeCount: batch.approximateInvokeCount,
    ...(batch.functionError === undefined ? {} : { functionError: batch.functionError }),
    partitions: batch.partitions.map((p) => ({
      partition: p.key,
      firstOffset: p.firstOffset,
      lastOffset: p.lastOffset,
      records: p.records.length,
    })),
    records: batch.recordCount,
    pastDedupWindow: past,
    payloadBytes: batch.payloadBytes,
    replay: replay ?? null,
  };
}

/** `-`, or when it was last replayed, how often, and what its records came to. */
export function replayText(replay: ReplayLog | null | undefined): string {
  if (replay === undefined || replay === null) return '-';
  const counts = Object.entries(replay.counts)
    .map(([outcome, count]) => `${count} ${outcome}`)
    .join(', ');
  const times = replay.attempts > 1 ? ` (${replay.attempts}x)` : '';
  return `${whenText(replay.replayedAtMs)}${times}: ${counts}`;
}
