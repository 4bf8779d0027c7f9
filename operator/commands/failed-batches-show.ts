/** `msk-inbox failed-batches show ID`: one failed batch, each record decoded, and what the inbox has of it. */
import { type DedupRow, INBOX_STATUS, isExpired } from '../../lambdas/core/inbox-rows.js';
import { type QuarantineRow, quarantineKeyOf } from '../../lambdas/core/quarantine-row.js';
import { parseCommandLine } from '../cli/parse-flags.js';
import { UserError } from '../cli/user-error.js';
import { type ConsumerSettings, pastDedupWindow, shellSettings } from '../consumer-settings.js';
import { resolveBatchId, shortIds } from '../failed-batches/batch-ids.js';
import { type FailedBatch, nameOf } from '../failed-batches/failed-batch.js';
import { type OperatorInbox, withInboxAdvice } from '../operator-inbox.js';
import { COMMON_FLAGS, COMMON_HELP, resolveOperatorTarget } from '../operator-target.js';
import {
  dedupKeyOf,
  oneRecordEvent,
  type ReadableRecord,
  readableRecord,
  storedRecordOf,
} from '../quarantined-record.js';
import { bytesText, whenText } from '../table-text.js';
import { replayText } from './failed-batches-list.js';
import { batchSource, readBatches, SOURCE_FLAGS, SOURCE_HELP } from './failed-batches-source.js';
import type { OperatorIo } from './operator-io.js';

export const FAILED_SHOW_HELP = `Usage: msk-inbox failed-batches show ID (--dir DIR | --bucket NAME) [flags]

Shows one failed batch (ID as \`msk-inbox failed-batches list\` prints it, or its whole object name or
key): why the mapping gave up, its partitions and offsets, its replays, and each record decoded (key and
headers as text, base64 where not UTF-8; the value as JSON where it is JSON, else base64) with the dedup
key the consumer derives and what the inbox holds for it: applied, in progress, quarantined or nothing.

${SOURCE_HELP}

${COMMON_HELP}`;

export async function failedBatchesShow(argv: readonly string[], io: OperatorIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    { ...COMMON_FLAGS, ...SOURCE_FLAGS },
    'msk-inbox failed-batches show --help',
  );
  if (values.help) {
    io.print(FAILED_SHOW_HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new UserError('show takes one ID, as `msk-inbox failed-batches list` prints it');
  }
  const target = await resolveOperatorTarget(values);
  const source = batchSource(values, target);
  const objects = await source.list();
  const object = resolveBatchId(positionals[0] ?? '', objects, source.describe());
  const { batches, skipped } = await readBatches(source, [object], io);
  const batch = batches[0];
  if (batch === undefined) {
    throw new UserError(`${object.key} is not an on-failure record (${skipped[0]?.why ?? '?'})`);
  }
  const id = shortIds(objects.map((o) => nameOf(o.key))).get(batch.name) ?? batch.name;
  const replay = await withInboxAdvice(target.inbox, () => target.inbox.readReplayLog(batch.name));
  // The shell's settings: show invokes nothing, so it does not read the function's (docs/operate.md).
  const settings = shellSettings();
  const records = await withInboxAdvice(target.inbox, () =>
    inboxView(target.inbox, batch, settings, io.nowMs()),
  );
  const shown = {
    id,
    key: batch.object.key,
    failedAt: new Date(batch.timestampMs).toISOString(),
    condition: batch.condition,
    approximateInvokeCount: batch.approximateInvokeCount,
    functionError: batch.functionError ?? null,
    payloadBytes: batch.payloadBytes,
    replay: replay ?? null,
    records,
  };
  if (values.json) {
    io.print(JSON.stringify(shown, null, 2));
    return 0;
  }
  const lines: [string, string][] = [
    ['id', `${id}  (${batch.object.key})`],
    ['failed', whenText(batch.timestampMs)],
    [
      'condition',
      `${batch.condition}${batch.functionError ? ` (function error: ${batch.functionError})` : ''}`,
    ],
    ['invokes', `${batch.approximateInvokeCount} (approximate)`],
    ['payload', bytesText(batch.payloadBytes)],
    [
      'partitions',
      batch.partitions
        .map(
          (p) =>
            `${p.key}@${p.firstOffset}..${p.lastOffset} (${p.records.length} record${p.records.length === 1 ? '' : 's'})`,
        )
        .join(', '),
    ],
    ['replayed', replay === undefined ? 'never' : `${replayText(replay)} by ${replay.replayedBy ?? '?'}`],
  ];
  const width = Math.max(...lines.map(([name]) => name.length));
  io.print(lines.map(([name, text]) => `${name.padEnd(width)}  ${text}`).join('\n'));
  for (const record of records) io.print(`\n${recordText(record)}`);
  return 0;
}

interface ShownRecord extends ReadableRecord {
  readonly coordinates: string;
  readonly dedupKey: string | null;
  /** What the inbox holds for the record now. */
  readonly inbox: string;
  /** Older than the dedup window: a replay does not send it without --past-dedup-window. */
  readonly pastDedupWindow: boolean;
}

/** Each record decoded, with its dedup key and what the inbox holds for it. */
async function inboxView(
  inbox: OperatorInbox,
  batch: FailedBatch,
  settings: ConsumerSettings,
  nowMs: number,
): Promise<ShownRecord[]> {
  const { policy } = settings;
  const shown: ShownRecord[] = [];
  for (const partition of batch.partitions) {
    for (const record of partition.records) {
      const rebuilt = oneRecordEvent(batch.envelope, partition.key, record);
      const dedupKey = rebuilt.ok ? dedupKeyOf(rebuilt.record, policy) : undefined;
      const coordinates = rebuilt.ok ? quarantineKeyOf(rebuilt.record) : `${partition.key}@${record.offset}`;
      const row = dedupKey === undefined ? undefined : await inbox.dedupRow(dedupKey);
      // The quarantine row is read only when the dedup row does not settle what the inbox holds.
      const quarantined = () => inbox.quarantineRow(coordinates);
      shown.push({
        ...readableRecord(storedRecordOf(record)),
        coordinates,
        dedupKey: dedupKey ?? null,
        inbox: await inboxText(row, quarantined, nowMs),
        pastDedupWindow: pastDedupWindow(record.timestamp, settings, nowMs),
      });
    }
  }
  return shown;
}

async function inboxText(
  row: DedupRow | undefined,
  readQuarantined: () => Promise<QuarantineRow | undefined>,
  nowMs: number,
): Promise<string> {
  // Expired, the row is absent to the consumer (isExpired, its claim condition's test): a replay applies it.
  if (row !== undefined && isExpired(row, Math.floor(nowMs / 1_000))) {
    return `dedup row expired (first seen at ${String(row.source)}): the consumer would apply it again`;
  }
  if (row?.status === INBOX_STATUS.completed) return `applied (first seen at ${String(row.source)})`;
  if (row?.status === INBOX_STATUS.inProgress) return 'in progress (another attempt holds its lease)';
  const quarantined = await readQuarantined();
  if (quarantined !== undefined) {
    return `quarantine row ${quarantined.status} (${quarantined.reason})`;
  }
  return 'not applied';
}

function recordText(record: ShownRecord): string {
  const key =
    record.key === null ? '(none)' : 'text' in record.key ? record.key.text : `base64 ${record.key.base64}`;
  const headers =
    typeof record.headers === 'string'
      ? `malformed: ${record.headers}`
      : record.headers.map((h) => `${h.name}=${h.text ?? `base64 ${h.base64}`}`).join(', ') || '(none)';
  const size = bytesText(record.valueBytes);
  const value =
    record.value === null
      ? '(null: a tombstone)'
      : 'json' in record.value
        ? `JSON, ${size}: ${JSON.stringify(record.value.json)}`
        : `base64, ${size}: ${record.value.base64}`;
  return [
    `${record.coordinates}  ${record.timestamp ?? 'no timestamp'}${record.pastDedupWindow ? '  past the dedup window: replay sends it only with --past-dedup-window' : ''}`,
    `  dedup key  ${record.dedupKey ?? '-'}`,
    `  inbox      ${record.inbox}`,
    `  key        ${key}`,
    `  headers    ${headers}`,
    `  value      ${value}`,
  ].join('\n');
}
