/**
 * The demo's proof: the effects are exactly what applying each unique valid event once gives (the order
 * consumer's balances and totals, or one call per event at the notification consumer's receiver), each
 * such event has its COMPLETED inbox row, every poison record has its quarantine row, and every partition
 * is committed to its end. The store's state is read by demo-state.ts (DynamoDB, Postgres) or
 * demo-redis.ts.
 */
import type { PartitionProgress, TopicPartition } from '../esm/record-source.js';
import { topicPartitionKey } from '../esm/record-source.js';
import type { CallEffects, DemoState, OrderEffects } from './demo-state.js';
import type { ExpectedState } from './workload.js';

export interface VerificationInput {
  /** What the consumer left in its store, read once processing is over (demo-state.ts). */
  readonly readState: () => Promise<DemoState>;
  readonly expected: ExpectedState;
  /** Where each poison record landed. */
  readonly poison: readonly (TopicPartition & { readonly offset: number })[];
  readonly progress: readonly PartitionProgress[];
  /** Records the mapping gave up on (sent to the on-failure destination). */
  readonly destinationRecords: number;
}

/** What the check of the effects covered. */
export type EffectsChecked =
  | { readonly kind: 'orders'; readonly accounts: number; readonly orders: number }
  /** `events` valid events, `calls` calls received in all. */
  | { readonly kind: 'calls'; readonly events: number; readonly calls: number };

export interface Verification {
  readonly ok: boolean;
  /** One line per kind of problem, with examples. */
  readonly problems: readonly string[];
  readonly checked: EffectsChecked;
  readonly completedRows: number;
  readonly quarantineRows: number;
  /** Quarantine rows by reason (the consumer's reason, e.g. `undecodable`, `invalid-event`), where known. */
  readonly quarantineReasons: ReadonlyMap<string, number>;
}

export async function verify(input: VerificationInput): Promise<Verification> {
  const problems: string[] = [];
  const state = await input.readState();
  const checked =
    state.effects.kind === 'orders'
      ? checkOrders(input.expected, state.effects, problems)
      : checkCalls(input.expected, state.effects, problems);
  const uniqueValidEvents = input.expected.validEventIds.size;
  if (state.completedRows !== uniqueValidEvents) {
    problems.push(
      `${state.completedRows} COMPLETED inbox rows, expected one per unique valid event: ${uniqueValidEvents}`,
    );
  }

  const quarantineReasons = new Map<string, number>();
  for (const reason of state.quarantined.values()) {
    if (reason !== undefined) quarantineReasons.set(reason, (quarantineReasons.get(reason) ?? 0) + 1);
  }
  const expectedQuarantine = new Set(input.poison.map(recordCoordinates));
  const missing = [...expectedQuarantine].filter((key) => !state.quarantined.has(key));
  const unexpected = [...state.quarantined.keys()].filter((key) => !expectedQuarantine.has(key));
  if (missing.length > 0)
    problems.push(`${missing.length} poison records not quarantined, e.g. ${sample(missing)}`);
  if (unexpected.length > 0)
    problems.push(`${unexpected.length} valid records quarantined, e.g. ${sample(unexpected)}`);

  const behind = input.progress.filter((p) => p.committedOffset !== p.endOffset);
  if (behind.length > 0) {
    const lag = behind.map((p) => `${topicPartitionKey(p)} committed ${p.committedOffset} of ${p.endOffset}`);
    problems.push(`uncommitted records: ${lag.join(', ')}`);
  }
  if (input.destinationRecords > 0) {
    problems.push(`${input.destinationRecords} records went to the on-failure destination`);
  }

  return {
    ok: problems.length === 0,
    problems,
    checked,
    completedRows: state.completedRows,
    quarantineRows: state.quarantined.size,
    quarantineReasons,
  };
}

/** Every balance and order total as the unique valid events give them, every order PLACED, nothing else. */
function checkOrders(expected: ExpectedState, effects: OrderEffects, problems: string[]): EffectsChecked {
  compare('account balance', expected.balances, effects.balances, problems);
  compare('order total', expected.orderTotals, effects.orderTotals, problems);
  const { badStatus, strays } = effects;
  if (badStatus.length > 0) problems.push(`${badStatus.length} orders not PLACED, e.g. ${sample(badStatus)}`);
  if (strays.length > 0) problems.push(`${strays.length} unexpected app items, e.g. ${sample(strays)}`);
  return { kind: 'orders', accounts: expected.balances.size, orders: expected.orderTotals.size };
}

/** One call per unique valid event, under its event_id as the Idempotency-Key, and no other call. */
function checkCalls(expected: ExpectedState, effects: CallEffects, problems: string[]): EffectsChecked {
  const wrong: string[] = [];
  for (const eventId of expected.validEventIds) {
    const calls = effects.callsByKey.get(eventId) ?? 0;
    if (calls !== 1) wrong.push(`${eventId} called ${calls} times`);
  }
  const strays = [...effects.callsByKey.keys()].filter((key) => !expected.validEventIds.has(key));
  if (wrong.length > 0)
    problems.push(`${wrong.length} events not called exactly once, e.g. ${sample(wrong)}`);
  if (strays.length > 0)
    problems.push(`${strays.length} keys called for no valid event, e.g. ${sample(strays)}`);
  let calls = 0;
  for (const count of effects.callsByKey.values()) calls += count;
  return { kind: 'calls', events: expected.validEventIds.size, calls };
}

/** A record's coordinates as a quarantine row names them: `topic-partition@offset`. */
export function recordCoordinates(record: TopicPartition & { readonly offset: number }): string {
  return `${topicPartitionKey(record)}@${record.offset}`;
}

function compare(
  what: string,
  expected: ReadonlyMap<string, number>,
  actual: ReadonlyMap<string, number>,
  problems: string[],
): void {
  const wrong: string[] = [];
  for (const [key, value] of expected) {
    const found = actual.get(key);
    if (found !== value) wrong.push(`${key} ${found ?? 'missing'} != ${value}`);
  }
  for (const key of actual.keys()) if (!expected.has(key)) wrong.push(`${key} not expected`);
  if (wrong.length > 0) problems.push(`${wrong.length} wrong ${what}s, e.g. ${sample(wrong)}`);
}

function sample(items: readonly string[]): string {
  return items.slice(0, 3).join('; ');
}
