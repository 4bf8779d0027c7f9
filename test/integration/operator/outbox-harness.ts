/**
 * `msk-inbox outbox ...` under test on DynamoDB Local: the relay's bench (test/support/relay-harness.ts: an
 * outbox table with its stream, the in-process broker, a manual clock), rows written by the real appender
 * and relay (test/support/outbox-rows.ts), the commands run in this process.
 */
import { inject } from 'vitest';
import { runOperator } from '../../../operator/operator-main.js';
import { CONSUMER, type RelayHarness, TOPIC } from '../../support/relay-harness.js';
import { collectingIo } from './postgres-harness.js';

export { emit, relay, shipped } from '../../support/outbox-rows.js';
export { CONSUMER, TOPIC };

/** Runs `msk-inbox ARGV` on the bench's table as consumer `orders` (unless ARGV names one), at `nowMs`. */
export async function outboxCli(h: RelayHarness, argv: readonly string[], nowMs = h.clock.nowMs()) {
  const { io, run } = collectingIo(undefined, () => nowMs);
  const consumer = argv.includes('--consumer') ? [] : ['--consumer', CONSUMER];
  const where = ['--endpoint', inject('dynamoDbEndpoint'), '--outbox-table', h.bench.tableName];
  return run(await runOperator([...argv, ...where, ...consumer], io));
}

/** `outbox list --json` and `outbox quarantined --json`, parsed. */
export async function listed(h: RelayHarness, argv: readonly string[] = [], nowMs?: number) {
  return JSON.parse((await outboxCli(h, ['outbox', 'list', '--json', ...argv], nowMs)).out) as {
    keys: {
      consumer: string;
      topic: string;
      key: string;
      events: number;
      bytes: number;
      oldestAgeMs: number;
      headId: string;
    }[];
    total: { keys: number; events: number; bytes: number; oldestAgeMs: number };
  };
}

export async function quarantinedIds(h: RelayHarness): Promise<string[]> {
  const parsed = JSON.parse((await outboxCli(h, ['outbox', 'quarantined', '--json'])).out) as {
    events: { id: string }[];
  };
  return parsed.events.map((event) => event.id);
}
