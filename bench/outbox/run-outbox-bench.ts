/**
 * `npm run bench -- --outbox`: what an emitted event costs. The default inbox consumer (inbox-tx) beside
 * the same consumer emitting one PaymentRequested per order through the outbox (inbox-tx-emit), in the
 * same run, on the same batches, at rttMs 0 and over the modelled network; the relay drains the outbox
 * after each batch (bench/outbox/measure-outbox.ts).
 */
import { startDynamoDbLocal } from '../../local/dynamodb-local/server.js';
import type { Contender } from '../contenders/contender.js';
import { inboxContender } from '../contenders/inbox.js';
import { inboxTx } from '../contenders/index.js';
import { spreadOf } from '../measure/stats.js';
import { buildSequences, rotate, type ScenarioName, type Sequence, type SequenceSize } from '../scenarios.js';
import { measureOutboxDelivery, type OutboxMeasurement } from './measure-outbox.js';

/** The scenarios compared: one big batch over 4 partitions, and a hot partition's 100-record batches. */
export const OUTBOX_SCENARIOS: readonly ScenarioName[] = ['new-4p', 'hot-1p'];
export const PAYMENTS_TOPIC = 'payments';

export const OUTBOX_CONTENDERS: readonly (Contender & { readonly emits: boolean })[] = [
  { ...inboxContender(inboxTx), emits: false },
  {
    ...inboxContender({
      ...inboxTx,
      name: 'inbox-tx-emit',
      description: `inbox-tx whose effect also emits one PaymentRequested (keyed by account) to ${PAYMENTS_TOPIC}`,
      paymentsTopic: PAYMENTS_TOPIC,
    }),
    emits: true,
  },
];

export interface OutboxBenchOptions {
  readonly runs: number;
  /** Base round trips beside 0, each run once; every rttMs runs the sweep's shorter batches (bench/scenarios.ts). */
  readonly rttSweepMs: readonly number[];
  readonly progress: (message: string) => void;
}

/** One row of the table: a contender on a scenario at one rttMs, over its runs. */
export interface OutboxRow {
  readonly scenario: ScenarioName;
  readonly contender: string;
  readonly rttMs: number;
  readonly runs: number;
  readonly records: number;
  readonly recordsPerSecond: number;
  readonly msPerRecord: number;
  readonly requestsPerRecord: number;
  readonly transactionsPerRecord: number;
  readonly actionsPerRecord: number;
  readonly billedWcuPerRecord: number;
  /** What DynamoDB Local said it consumed (not DynamoDB's bill for transactions). */
  readonly localWcuPerRecord: number;
  readonly events: number;
  readonly relay?: {
    readonly requestsPerEvent: number;
    readonly byCommandPerEvent: Readonly<Record<string, number>>;
    readonly wcuPerEvent: number;
    readonly invocationsPer1000Events: number;
    readonly msPerEvent: number;
  };
}

export interface OutboxBenchResults {
  readonly rows: readonly OutboxRow[];
  readonly runs: number;
  readonly rttSweepMs: readonly number[];
  readonly wallSeconds: number;
}

export async function runOutboxBench(options: OutboxBenchOptions): Promise<OutboxBenchResults> {
  const started = performance.now();
  const dynamoDb = await startDynamoDbLocal();
  try {
    const endpoint = dynamoDb.endpoint;
    const measurements: OutboxMeasurement[] = [];
    const measure = async (size: SequenceSize, rttMs: number, run: number, label: string) => {
      for (const [index, [sequence, delivery]] of deliveries(size).entries()) {
        for (const contender of rotate(OUTBOX_CONTENDERS, run + index)) {
          const measured = await measureOutboxDelivery(contender, sequence, delivery, {
            endpoint,
            runId: `${label}${run}s${index}`.replace('.', '_'),
            rttMs,
            emits: contender.emits,
          });
          if (label !== 'warm') measurements.push(measured);
          options.progress(
            `outbox ${label} rttMs ${rttMs} run ${run + 1} ${contender.name.padEnd(14)} ${delivery.scenario} ` +
              `${((measured.records / measured.milliseconds) * 1000).toFixed(0)} rec/s`,
          );
        }
      }
    };
    // Every path once (DynamoDB Local's JIT, the stream), not measured.
    await measure('sweep', 0, 0, 'warm');
    // The sweep's shorter batches at rttMs 0 too: the full ones take minutes per run with the outbox's
    // stream on DynamoDB Local, and requests and write units per record do not depend on the length.
    for (let run = 0; run < options.runs; run += 1) await measure('sweep', 0, run, 'o');
    for (const rttMs of options.rttSweepMs) await measure('sweep', rttMs, 0, `m${rttMs}r`);
    return {
      rows: aggregateOutbox(measurements),
      runs: options.runs,
      rttSweepMs: options.rttSweepMs,
      wallSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    await dynamoDb.stop();
  }
}

function deliveries(size: SequenceSize): [Sequence, Sequence['deliveries'][number]][] {
  return buildSequences(size).flatMap((sequence) =>
    sequence.deliveries
      .filter((delivery) => OUTBOX_SCENARIOS.includes(delivery.scenario))
      .map((delivery): [Sequence, Sequence['deliveries'][number]] => [sequence, delivery]),
  );
}

/** Medians of the timings; counts from all runs together (they repeat the same work). */
export function aggregateOutbox(measurements: readonly OutboxMeasurement[]): OutboxRow[] {
  const groups = new Map<string, OutboxMeasurement[]>();
  for (const m of measurements) {
    const key = `${m.scenario}|${m.rttMs}|${m.contender}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()].map((group) => {
    const first = group[0] as OutboxMeasurement;
    const records = sum(group, (m) => m.records);
    const events = sum(group, (m) => m.appends);
    const relays = group.flatMap((m) => (m.relay ? [m.relay] : []));
    const byCommand: Record<string, number> = {};
    for (const relay of relays) {
      for (const [command, count] of Object.entries(relay.byCommand)) {
        byCommand[command] = (byCommand[command] ?? 0) + count / events;
      }
    }
    return {
      scenario: first.scenario,
      contender: first.contender,
      rttMs: first.rttMs,
      runs: group.length,
      records: first.records,
      recordsPerSecond: spreadOf(group.map((m) => (m.records / m.milliseconds) * 1000)).median,
      msPerRecord: spreadOf(group.map((m) => m.milliseconds / m.records)).median,
      requestsPerRecord: sum(group, (m) => m.tally.requests) / records,
      transactionsPerRecord: sum(group, (m) => m.tally.transactions) / records,
      actionsPerRecord: sum(group, (m) => m.transactionActions) / records,
      billedWcuPerRecord: sum(group, (m) => m.billedWcu) / records,
      localWcuPerRecord: sum(group, (m) => m.tally.wcu) / records,
      events,
      ...(relays.length > 0 && events > 0
        ? {
            relay: {
              requestsPerEvent: sum(relays, (r) => r.requests) / events,
              byCommandPerEvent: byCommand,
              wcuPerEvent: sum(relays, (r) => r.wcu) / events,
              invocationsPer1000Events: (sum(relays, (r) => r.invocations) / events) * 1000,
              msPerEvent: sum(relays, (r) => r.milliseconds) / events,
            },
          }
        : {}),
    };
  });
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  return items.reduce((total, item) => total + of(item), 0);
}
