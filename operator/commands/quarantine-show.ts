/** `msk-inbox quarantine show ID`: the whole row and its record decoded. */

import { OPERATOR_ATTRIBUTES as O } from '../../lambdas/core/inbox-rows.js';
import type { QuarantineRow } from '../../lambdas/core/quarantine-row.js';
import { parseCommandLine } from '../cli/parse-flags.js';
import { UserError } from '../cli/user-error.js';
import { pastDedupWindow, settingsOfRow, shellSettings } from '../consumer-settings.js';
import { getRow, withInboxAdvice } from '../operator-inbox.js';
import { COMMON_FLAGS, COMMON_HELP, type OperatorTarget, resolveOperatorTarget } from '../operator-target.js';
import { type ReadableRecord, readableRecord } from '../quarantined-record.js';
import { bytesText, whenText } from '../table-text.js';
import type { OperatorIo } from './operator-io.js';

export const SHOW_HELP = `Usage: msk-inbox quarantine show ID [flags]

Shows one quarantine row (ID as \`msk-inbox quarantine list\` prints it, topic-partition@offset): its
reason, error and history, and the record decoded: key and headers as text (base64 where they are not
UTF-8), the value as JSON where it is JSON, else base64, and whether it was truncated to fit the row.

${COMMON_HELP}`;

export async function quarantineShow(argv: readonly string[], io: OperatorIo): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, COMMON_FLAGS, 'msk-inbox quarantine show --help');
  if (values.help) {
    io.print(SHOW_HELP);
    return 0;
  }
  if (positionals.length !== 1)
    throw new UserError('show takes one ID, e.g. msk-inbox quarantine show orders-0@42');
  const target = await resolveOperatorTarget(values);
  const id = positionals[0] ?? '';
  const row = await withInboxAdvice(target.inbox, () => getRow(target.inbox, id));
  if (row === undefined) throw noSuchRow(target, id);
  const record = readableRecord(row.record);
  if (values.json) {
    io.print(JSON.stringify({ id: row.id, row: row.item, record }, null, 2));
    return 0;
  }
  // The row's window; for a row from before the consumer kept it, the shell's: show invokes nothing, so
  // it reads no function (docs/operate.md#the-dedup-window).
  const settings = settingsOfRow(row, shellSettings());
  const past = pastDedupWindow(row.record.timestamp, settings, io.nowMs());
  io.print(showText(row, record, past));
  return 0;
}

export function noSuchRow(target: OperatorTarget, id: string): UserError {
  return new UserError(
    `no quarantine row ${id} for consumer ${target.consumer} in ${target.inbox.describe()}: \`msk-inbox quarantine list\` prints the ids`,
  );
}

function showText(row: QuarantineRow, record: ReadableRecord, pastWindow: boolean): string {
  const item = row.item;
  const lines: [string, string][] = [
    ['id', row.id + (row.parked ? ' (a replay of it did not finish: replay it again)' : '')],
    ['status', row.status],
    ['reason', row.reason],
    ['error', row.error],
    ['quarantined', whenText(row.quarantinedAt)],
  ];
  if (row.replayAttempts > 0) {
    lines.push([
      'replayed',
      `${row.replayAttempts}x, last ${whenText(item[O.replayedAt] as number)}: ${String(item[O.replayOutcome])}`,
    ]);
    if (item[O.previousReason] !== undefined) lines.push(['reason before', String(item[O.previousReason])]);
  }
  if (item[O.discardedAt] !== undefined) {
    lines.push([
      'discarded',
      `${whenText(item[O.discardedAt] as number)} by ${String(item[O.discardedBy])}: ${String(item[O.discardReason])}`,
    ]);
  }
  lines.push(
    [
      'record',
      `${record.topic} partition ${record.partition} offset ${record.offset}, ${record.timestamp ?? 'no timestamp'}${pastWindow ? ' (past the dedup window: replay sends it only with --past-dedup-window)' : ''}`,
    ],
    [
      'key',
      record.key === null ? '(none)' : 'text' in record.key ? record.key.text : `base64 ${record.key.base64}`,
    ],
  );
  const headers =
    typeof record.headers === 'string'
      ? `malformed: ${record.headers}`
      : record.headers.map((h) => `${h.name}=${h.text ?? `base64 ${h.base64}`}`).join(', ') || '(none)';
  lines.push(['headers', headers]);
  const size = bytesText(record.valueBytes, record.valueTruncated);
  const value =
    record.value === null
      ? '(null: a tombstone)'
      : 'json' in record.value
        ? `JSON, ${size}\n${JSON.stringify(record.value.json, null, 2)}`
        : `base64, ${size}${record.valueTruncated ? ', TRUNCATED to fit the row' : ''}\n${record.value.base64}`;
  lines.push(['value', value]);
  lines.push(['truncated', record.valueTruncated ? 'yes: the value was cut to fit the row' : 'no']);
  const width = Math.max(...lines.map(([name]) => name.length));
  return lines.map(([name, text]) => `${name.padEnd(width)}  ${text}`).join('\n');
}
