/**
 * Runs one sequence of deliveries for one contender, as one fresh Lambda container on fresh tables, and
 * measures each delivery: wall time of the invocation and the DynamoDB requests it made. A delivery that
 * reports any record, or balances that differ from exactly-once, make the whole benchmark fail: a fast
 * wrong answer must never reach the table.
 */

import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localDynamoDbClient } from '../../local/dynamodb-local/client.js';
import { createLambdaContext, untilDeadline } from '../../local/esm/lambda-function.js';
import type { Container, Contender } from '../contenders/contender.js';
import type { BilledCapacity } from '../cost/billed-capacity.js';
import { CapacityMeter } from '../cost/capacity-meter.js';
import { billedMilliseconds } from '../cost/cost-model.js';
import { attachNetworkModel } from '../network-model.js';
import type { ScenarioName, Sequence } from '../scenarios.js';
import { RequestCounter, type RequestTally } from './request-counter.js';
import { createBenchTables, deleteBenchTables, readBalances } from './tables.js';

/** Where the inbox (and the effect's writes, if any) lived. */
export type StoreName = 'dynamodb' | 'postgres' | 'redis';

export interface DeliveryMeasurement {
  readonly contender: string;
  readonly store: StoreName;
  readonly scenario: ScenarioName;
  /**
   * The modelled base round trip (bench/network-model.ts, bench/postgres/postgres-network-model.ts,
   * bench/redis/redis-network-model.ts); 0 for none.
   */
  readonly rttMs: number;
  readonly records: number;
  /** Wall time of the delivery's invocations, summed. */
  readonly milliseconds: number;
  /** Invocations (batches) of the delivery. */
  readonly invocations: number;
  /** Each invocation's wall time rounded up to the next millisecond, as Lambda bills it, summed. */
  readonly billedMilliseconds: number;
  /** Write and read units DynamoDB bills for the delivery's requests; none for a store billed by the hour. */
  readonly capacity?: BilledCapacity;
  /** CPU time of this process during the invocation: the contender's own cost, DynamoDB Local aside. */
  readonly cpuMilliseconds: number;
  readonly tally: RequestTally;
}

export interface SequenceRun {
  readonly endpoint: string;
  /** Unique per run: names the tables. */
  readonly runId: string;
  /** Also compare every account balance with the exactly-once expectation (a scan: not timed). */
  readonly verify: boolean;
  /** The modelled base round trip; 0 leaves the client as it is. */
  readonly rttMs: number;
}

/** Lambda's longest timeout: no record is ever deferred for lack of time. */
const INVOCATION_MS = 900_000;

export async function runSequence(
  contender: Contender,
  sequence: Sequence,
  run: SequenceRun,
): Promise<DeliveryMeasurement[]> {
  const client = new DynamoDBClient({
    ...contender.clientConfig,
    endpoint: run.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const counter = new RequestCounter();
  counter.attach(client);
  attachNetworkModel(client, run.rttMs);
  // Table names allow letters, digits, '_', '-' and '.'; contender names are prose.
  const tables = await createBenchTables(
    client,
    `${run.runId}-${contender.name.replace(/[^A-Za-z0-9_.-]+/g, '-')}`,
  );
  // Reads the tables between deliveries: neither counted nor delayed.
  const admin = localDynamoDbClient(run.endpoint);
  try {
    const container = contender.createContainer({ dynamoDb: client, tables });
    const measurements = await measureDeliveries({
      contender: contender.name,
      store: 'dynamodb',
      container,
      counter,
      capacity: new CapacityMeter(client, admin, [tables.inbox, tables.app, tables.idempotency]),
      sequence,
      rttMs: run.rttMs,
    });
    if (run.verify) await verifyBalances(contender, sequence, client, tables.app);
    return measurements;
  } finally {
    await deleteBenchTables(client, tables);
    client.destroy();
    admin.destroy();
  }
}

export interface DeliveryRun {
  readonly contender: string;
  readonly store: StoreName;
  readonly container: Container;
  /** Reset before each delivery: its tally is that delivery's. */
  readonly counter: { reset(): void; tally(): RequestTally };
  /** Prices each delivery's requests after it (outside the timed section); DynamoDB only. */
  readonly capacity?: { begin(): Promise<void>; end(): Promise<BilledCapacity> };
  readonly sequence: Sequence;
  readonly rttMs: number;
}

/**
 * Each delivery of the sequence on the one container: its batches invoked one after another, as the ESM
 * invokes a partition's, timed and counted; any record reported fails the whole benchmark.
 */
export async function measureDeliveries(run: DeliveryRun): Promise<DeliveryMeasurement[]> {
  const { contender, container, counter, rttMs } = run;
  const measurements: DeliveryMeasurement[] = [];
  for (const delivery of run.sequence.deliveries) {
    await run.capacity?.begin();
    counter.reset();
    let milliseconds = 0;
    let billed = 0;
    let cpuMicroseconds = 0;
    // A partition's batches: the next one is invoked once the previous one has returned, as the ESM does.
    for (const batch of delivery.batches) {
      const context = createLambdaContext(
        { functionName: contender },
        { requestId: randomUUID(), remainingMs: untilDeadline(Date.now() + INVOCATION_MS) },
      );
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const response = await container.invoke(batch, context);
      const invocationMs = performance.now() - started;
      milliseconds += invocationMs;
      billed += billedMilliseconds(invocationMs);
      const cpu = process.cpuUsage(cpuBefore);
      cpuMicroseconds += cpu.user + cpu.system;
      if (response.batchItemFailures.length > 0) {
        throw new Error(
          `${contender} reported ${response.batchItemFailures.length} records on ${delivery.scenario}` +
            `${rttMs > 0 ? ` at rttMs ${rttMs}` : ''}; every record must succeed for the figures to mean anything`,
        );
      }
    }
    const tally = counter.tally();
    const capacity = await run.capacity?.end();
    measurements.push({
      contender,
      store: run.store,
      scenario: delivery.scenario,
      rttMs,
      records: delivery.records,
      milliseconds,
      invocations: delivery.batches.length,
      billedMilliseconds: billed,
      ...(capacity ? { capacity } : {}),
      cpuMilliseconds: cpuMicroseconds / 1000,
      tally,
    });
  }
  return measurements;
}

async function verifyBalances(
  contender: Contender,
  sequence: Sequence,
  client: DynamoDBClient,
  appTable: string,
): Promise<void> {
  checkExactlyOnce(contender.name, sequence, await readBalances(client, appTable, contender.balancesFrom));
}

/** Every account's balance as the sequence's distinct events, each applied once, make it; throws otherwise. */
export function checkExactlyOnce(
  contender: string,
  sequence: Sequence,
  actual: ReadonlyMap<string, number>,
): void {
  const wrong = [...sequence.expectedBalances].filter(
    ([account, balance]) => actual.get(account) !== balance,
  );
  if (wrong.length > 0 || actual.size !== sequence.expectedBalances.size) {
    const [account, balance] = wrong[0] ?? ['(count)', sequence.expectedBalances.size];
    throw new Error(
      `${contender} did not apply "${sequence.name}" exactly once: account ${account} is ` +
        `${actual.get(account) ?? actual.size}, expected ${balance}`,
    );
  }
}
