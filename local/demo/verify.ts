/**
 * The demo's proof: the app table holds exactly what applying each unique valid event once gives, every
 * poison record has its quarantine row, and every partition is committed to its end. The store's state is
 * read by demo-state.ts, from DynamoDB or Postgres alike.
 */
import type { PartitionProgress, TopicPartition } from '../esm/record-source.js';
import { topicPartitionKey } from '../esm/record-source.js';
import type { DemoState } from './demo-state.js';
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

export interface Verification {
  readonly ok: boolean;
  /** One line per kind of problem, with examples. */
  readonly problems: readonly string[];
  readonly accountsChecked: number;
  readonly ordersChecked: number;
  readonly completedRows: number;
  readonly quarantineRows: number;
  /** Quarantine rows by reason (the consumer's reason, e.g. `undecodable`, `invalid-event`). */
  readonly quarantineReasons: ReadonlyMap<string, number>;
}

export async function verify(input: VerificationInput): Promise<Verification> {
  const problems: string[] = [];
  const state = await input.readState();
  compare('account balance', input.expected.balances, state.balances, problems);
  compare('order total', input.expected.orderTotals, state.orderTotals, problems);
  const { badStatus, strays } = state;
  if (badStatus.length > 0) problems.push(`${badStatus.length} orders not PLACED, e.g. ${sample(badStatus)}`);
  if (strays.length > 0) problems.push(`${strays.length} unexpected app items, e.g. ${sample(strays)}`);
  if (state.completedRows !== input.expected.uniqueValidEvents) {
    problems.push(
      `${state.completedRows} COMPLETED inbox rows, expected one per unique valid event: ${input.expected.uniqueValidEvents}`,
    );
  }

  const quarantineReasons = new Map<string, number>();
  for (const reason of state.quarantined.values()) {
    quarantineReasons.set(reason, (quarantineReasons.get(reason) ?? 0) + 1);
  }
  const expectedQuarantine = new Set(input.poison.map((p) => `${topicPartitionKey(p)}@${p.offset}`));
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
    accountsChecked: input.expected.balances.size,
    ordersChecked: input.expected.orderTotals.size,
    completedRows: state.completedRows,
    quarantineRows: state.quarantined.size,
    quarantineReasons,
  };
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
