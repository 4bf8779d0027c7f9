/** `msk-inbox quarantine list`: the consumer's quarantined records, newest first, and counts per reason. */

import type { QuarantineRow } from '../../lambdas/core/quarantine-row.js';
import { parseCommandLine, positiveIntegerFlag } from '../cli/parse-flags.js';
import { UserError } from '../cli/user-error.js';
import {
  type ConsumerSettings,
  dedupKeysOfRow,
  pastDedupWindow,
  settingsOfRow,
  shellSettings,
} from '../consumer-settings.js';
import { withInboxAdvice } from '../operator-inbox.js';
import { COMMON_FLAGS, COMMON_HELP, resolveOperatorTarget } from '../operator-target.js';
import { replayEventOf, valueSize } from '../quarantined-record.js';
import { bytesText, tableText, whenText } from '../table-text.js';
import type { OperatorIo } from './operator-io.js';

export const LIST_HELP = `Usage: msk-inbox quarantine list [--reason R] [--since T] [--limit N] [flags]

Lists the consumer's quarantined records from the inbox table's sparse \`quarantine\` index, newest
first (id = topic-partition@offset, reason, when, dedup key, value size), then the count per reason.

  --reason R   only this reason (e.g. undecodable, missing-event-id, business-rule-rejected)
  --since T    only since T: an ISO time (2026-11-30T22:00Z) or an age (30m, 6h, 2d)
  --limit N    show N rows at most (default 50; the counts cover every match)

${COMMON_HELP}`;

const DEFAULT_LIMIT = 50;

export async function quarantineList(argv: readonly string[], io: OperatorIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    { ...COMMON_FLAGS, reason: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' } },
    'msk-inbox quarantine list --help',
  );
  if (values.help) {
    io.print(LIST_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UserError(`list takes no ids (got ${positionals[0]}): use show ID`);
  const target = await resolveOperatorTarget(values);
  const limit = positiveIntegerFlag('limit', values.limit as string | undefined, DEFAULT_LIMIT);
  const sinceMs = values.since === undefined ? undefined : parseSince(String(values.since), io.nowMs());
  const reason = values.reason as string | undefined;
  const { rows, countsByReason } = await withInboxAdvice(target.inbox, () =>
    target.inbox.listQuarantined({ reason, sinceMs, limit }),
  );
  const settings = shellSettings();
  const listed = rows.map((row) => listedRow(row, settings, io.nowMs()));
  const total = Object.values(countsByReason).reduce((sum, count) => sum + count, 0);
  if (values.json) {
    io.print(JSON.stringify({ consumer: target.consumer, total, countsByReason, rows: listed }, null, 2));
    return 0;
  }
  if (total === 0) {
    io.print(
      `no quarantined records for consumer ${target.consumer}${reason ? ` with reason ${reason}` : ''}`,
    );
    return 0;
  }
  io.print(
    tableText(
      ['ID', 'REASON', 'QUARANTINED', 'DEDUP KEY', 'SIZE'],
      listed.map((row) => [
        `${row.id}${row.replaying ? ' (replaying)' : ''}${row.pastDedupWindow ? ' (past window)' : ''}`,
        row.reason,
        whenText(row.quarantinedAtMs),
        row.dedupKey ?? '-',
        bytesText(row.valueBytes, row.valueTruncated),
      ]),
    ),
  );
  const counts = Object.entries(countsByReason)
    .sort(([, a], [, b]) => b - a)
    .map(([name, count]) => `${name} ${count}`)
    .join(', ');
  const shown = rows.length < total ? ` (${rows.length} shown: --limit)` : '';
  io.print(`\n${total} quarantined${shown}: ${counts}`);
  return 0;
}

function listedRow(row: QuarantineRow, settings: ConsumerSettings, nowMs: number) {
  const rebuilt = replayEventOf(row.id, row.record);
  const size = valueSize(row.record);
  return {
    id: row.id,
    reason: row.reason,
    error: row.error,
    quarantinedAtMs: row.quarantinedAt,
    quarantinedAt: row.quarantinedAt === undefined ? undefined : new Date(row.quarantinedAt).toISOString(),
    // The key on the row comes first among the record's keys; a record not rebuilt has only that one.
    dedupKey: rebuilt.ok ? dedupKeysOfRow(row, rebuilt.record, settings)[0] : row.consumer?.dedupKey,
    valueBytes: size.bytes,
    valueTruncated: size.approximate,
    replayAttempts: row.replayAttempts,
    replaying: row.parked,
    /** Older than the dedup window: replay sends it only with --past-dedup-window. */
    pastDedupWindow: pastDedupWindow(row.record.timestamp, settingsOfRow(row, settings), nowMs),
  };
}

const AGE_UNITS_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: an age (`30m`, `6h`, `2d`) back from now, or an ISO time. */
export function parseSince(text: string, nowMs: number): number {
  const age = /^(\d+)([smhd])$/.exec(text);
  if (age) return nowMs - Number(age[1]) * (AGE_UNITS_MS[age[2] ?? 's'] ?? 1_000);
  const at = Date.parse(text);
  if (Number.isNaN(at))
    throw new UserError(`--since ${text} is neither an age (30m, 6h, 2d) nor an ISO time`);
  return at;
}
