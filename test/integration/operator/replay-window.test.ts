/**
 * Where "apply time ≥ the record's timestamp" does not hold, `quarantine replay` still refuses what it
 * cannot prove unapplied (docs/operate.md#the-dedup-window): a payload-conflict record whose first copy's
 * dedup row has expired, and a record within the clock-skew margin of the window's end.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { kafkaEvent } from '../../support/kafka-events.js';
import {
  appliedCountOf,
  deliver,
  HANDLER_FILE,
  operator,
  useConsumerEnvironment,
} from './operator-harness.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

let tables: TestTables;
let endpoint: string;
let deliveredAt: number;

const replayAt = async (nowMs: number, ...argv: string[]) => {
  const result = await operator(
    tables,
    endpoint,
    ['quarantine', 'replay', '--handler', HANDLER_FILE, '--json', ...argv],
    undefined,
    () => nowMs,
  );
  const parsed = JSON.parse(result.out) as { results: { id: string; outcome: string; detail: string }[] };
  return { code: result.code, result: parsed.results[0] };
};
const appliedCount = (eventId: string) => appliedCountOf(tables, eventId);

beforeAll(async () => {
  tables = await createTestTables();
  endpoint = inject('dynamoDbEndpoint');
  useConsumerEnvironment(tables, endpoint);
  deliveredAt = Date.now();
  // e1 applied now: its dedup row expires in 7 days (the default window), whatever the timestamps.
  await deliver(kafkaEvent([{ offset: 0, value: { event_id: 'e1', amount: 10 } }]), deliveredAt);
  // A copy of e1 with another payload, stamped a day later: quarantined as payload-conflict, and its own
  // window ends a day after e1's row expires.
  await deliver(kafkaEvent([{ offset: 1, value: { event_id: 'e1', amount: 20 } }]), deliveredAt + DAY_MS);
  // Over the maximum (100): quarantined as invalid-event, stamped now.
  await deliver(kafkaEvent([{ offset: 2, value: { event_id: 'e2', amount: 500 } }]), deliveredAt);
  expect(await appliedCount('e1')).toBe(1);
});

describe('a payload-conflict record', () => {
  it("is sent while the first copy's dedup row lives: the consumer quarantines it again", async () => {
    const { result } = await replayAt(Date.now(), 'orders-0@1');
    expect(result).toMatchObject({
      outcome: 'quarantined-again',
      detail: expect.stringContaining('payload-conflict'),
    });
    expect(await appliedCount('e1')).toBe(1);
  });

  it("is not sent once the first copy's dedup row expired, though its own window is open", async () => {
    const { code, result } = await replayAt(deliveredAt + 7.5 * DAY_MS, 'orders-0@1');
    expect(code).toBe(1);
    expect(result).toMatchObject({
      outcome: 'past-dedup-window',
      detail: expect.stringMatching(
        /^quarantined as payload-conflict: the dedup row of the copy applied first under e1 has expired/,
      ),
    });
    expect(await appliedCount('e1')).toBe(1);
  });
});

describe('the clock-skew margin', () => {
  it('ends the window an hour before timestamp + TTL', async () => {
    const justBefore = await replayAt(deliveredAt + 7 * DAY_MS - 2 * HOUR_MS, 'orders-0@2', '--dry-run');
    expect(justBefore.result?.outcome).toBe('would-replay');
    const withinMargin = await replayAt(deliveredAt + 7 * DAY_MS - HOUR_MS / 2, 'orders-0@2', '--dry-run');
    expect(withinMargin.result).toMatchObject({
      outcome: 'past-dedup-window',
      detail: expect.stringContaining('less 1 h for clock skew'),
    });
  });
});
