/**
 * The consumer's settings a replay judges by (docs/operate.md#replay): its dedup key policy (which row
 * holds a record's outcome) and its dedup window (how long that row lives). They are the function's, not
 * the operator's shell's: read through the handler's own table and parser (lambdas/core/settings.ts), so
 * the names, defaults and bounds are defined once.
 */
import type { DecodedRecord } from '../lambdas/core/decode-event.js';
import type { DedupKeyPolicy } from '../lambdas/core/dedup-key.js';
import type { QuarantineRow } from '../lambdas/core/quarantine-row.js';
import { readHandlerSettings } from '../lambdas/core/settings.js';
import { dedupKeyOf } from './quarantined-record.js';

export interface ConsumerSettings {
  readonly policy: DedupKeyPolicy;
  /** The dedup window: a dedup row expires this long after the record was applied. */
  readonly dedupTtlSeconds: number;
  /** Where they were read, for messages: `function NAME's configuration` or `this shell's environment`. */
  readonly source: string;
}

/** The settings from an environment as the handler reads it; a variable missing or out of bounds is its default. */
export function consumerSettingsOf(
  env: Readonly<Record<string, string | undefined>>,
  source: string,
): ConsumerSettings {
  // Problems (a missing INBOX_TABLE_NAME, a bad value) are the handler's to report: a bad value reads as
  // its default here, as the handler's table gives it.
  const { settings } = readHandlerSettings(env);
  return {
    policy: {
      header: settings.dedupHeader,
      field: settings.dedupField,
      fallback: settings.dedupKeyFallback,
    },
    dedupTtlSeconds: settings.dedupTtlSeconds,
    source,
  };
}

/**
 * The settings of this shell's environment: what list and show judge by (they invoke nothing, so they read
 * no function), and a replay through `--handler`, which runs with this environment.
 */
export function shellSettings(): ConsumerSettings {
  return consumerSettingsOf(process.env, "this shell's environment");
}

/**
 * The dedup window a quarantine row is judged by: the shorter of the consumer's when it quarantined the
 * record (kept on the row) and `settings`' (the function's now, or the shell's). A copy applied under the
 * shorter window has the row that expires first, so the longer would let a replay through once that row
 * is gone: the event twice. A row written before the consumer kept it (msk-inbox 0.1.0): `settings`.
 */
export function settingsOfRow(row: QuarantineRow, settings: ConsumerSettings): ConsumerSettings {
  const kept = row.consumer?.dedupTtlSeconds;
  if (kept === undefined || kept > settings.dedupTtlSeconds) return settings;
  return { ...settings, dedupTtlSeconds: kept, source: "the consumer's, kept on the quarantine row" };
}

/**
 * The dedup keys a quarantined record may be applied under (docs/operate.md#what-a-replay-judges-by):
 * the key the consumer derived, kept on its row, whatever its value format or settings; and the key
 * `settings` give now where the tool can derive one (a header's, or a JSON value's: dedupKeyOf) and it
 * differs, since the consumer the replay invokes keys the record its current way (a policy changed, a
 * value that decodes since the fix). A row from before the consumer kept its key has only the second.
 */
export function dedupKeysOfRow(
  row: QuarantineRow,
  record: DecodedRecord,
  settings: ConsumerSettings,
): readonly string[] {
  const keys = [row.consumer?.dedupKey, dedupKeyOf(record, settings.policy)];
  return [...new Set(keys.filter((key): key is string => key !== undefined))];
}

/**
 * How much earlier than a record's timestamp it may have been applied (docs/operate.md#the-dedup-window):
 * with CreateTime timestamps a producer whose clock runs ahead stamps a record later than the consumer
 * applied it, and this machine's clock may run ahead of the function's. The window ends this much sooner.
 * An hour covers clocks that are wrong by minutes, not ones that are days off.
 */
export const CLOCK_SKEW_MARGIN_MS = 3_600_000;

/**
 * Whether a record of this Kafka timestamp may have been applied with a dedup row that has expired since:
 * a row written when it was applied expires at apply time + TTL, and apply time ≥ the record's timestamp
 * less the skew margin, so before timestamp − margin + TTL the row of an applied record is still there.
 * After it, "no dedup row" does not prove "never applied", and a replay could apply it twice. A record
 * without a usable timestamp (missing, not a number, not an integer) proves nothing either: it counts
 * as past the window.
 */
export function pastDedupWindow(timestampMs: unknown, settings: ConsumerSettings, nowMs: number): boolean {
  if (!Number.isSafeInteger(timestampMs)) return true;
  return (timestampMs as number) - CLOCK_SKEW_MARGIN_MS < nowMs - settings.dedupTtlSeconds * 1_000;
}

/** The refusal's detail, one line for the table. */
export function pastDedupWindowDetail(timestampMs: unknown, settings: ConsumerSettings): string {
  const days = +(settings.dedupTtlSeconds / 86_400).toFixed(2);
  const age = Number.isSafeInteger(timestampMs)
    ? `its timestamp ${new Date(timestampMs as number).toISOString()} is older than the dedup window (${days} d less ${CLOCK_SKEW_MARGIN_MS / 3_600_000} h for clock skew, ${settings.source})`
    : `it has no usable timestamp (${timestampMs === undefined || timestampMs === null ? 'none' : `a ${typeof timestampMs} that is not a whole number of ms`}), so it cannot be placed in the dedup window (${days} d, ${settings.source})`;
  return `${age}: its dedup row may have expired, so it may be applied twice; not sent (--past-dedup-window sends it)`;
}
