/**
 * One delivery of the order batches to one container, with or without emitting, and the relay after each
 * batch (outside the consumer's timed section: it is another function), measured: the consumer's wall
 * time, its requests and transaction actions, the write units DynamoDB bills for what it wrote
 * (bench/cost/capacity-units.ts, from the items' sizes after the write), and the relay's requests and write units.
 */
import { randomUUID } from 'node:crypto';
import { type AttributeValue, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { OUTBOX_ATTRIBUTES as A, OUTBOX_CHANGE } from '../../lambdas/core/outbox-rows.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localDynamoDbClient } from '../../local/dynamodb-local/client.js';
import { createAppTable, createInboxTable, createOutboxTable } from '../../local/dynamodb-local/tables.js';
import { createLambdaContext, untilDeadline } from '../../local/esm/lambda-function.js';
import type { BenchTables, Contender } from '../contenders/contender.js';
import { tableItemSizes } from '../cost/capacity-meter.js';
import { itemSizeBytes, writeUnits } from '../cost/capacity-units.js';
import { type RecordedAccess, RequestRecorder } from '../cost/request-recorder.js';
import { RequestCounter, type RequestTally } from '../measure/request-counter.js';
import { readBalances } from '../measure/tables.js';
import { checkExactlyOnce } from '../measure/throughput.js';
import { attachNetworkModel } from '../network-model.js';
import type { Delivery, ScenarioName, Sequence } from '../scenarios.js';
import { OutboxStream, type StreamRead } from './outbox-stream.js';
import { drain, newRelayDrain, type RelayTally } from './relay-drain.js';

export interface OutboxMeasurement {
  readonly contender: string;
  readonly scenario: ScenarioName;
  readonly rttMs: number;
  readonly records: number;
  readonly milliseconds: number;
  readonly tally: RequestTally;
  /** Actions of the TransactWriteItems sent (every attempt's). */
  readonly transactionActions: number;
  /** Write units DynamoDB bills for the consumer's writes, from the items' sizes. */
  readonly billedWcu: number;
  /** Events appended (one stream record each): emitted by new records. */
  readonly appends: number;
  readonly relay?: RelayTally & {
    readonly requests: number;
    readonly byCommand: Readonly<Record<string, number>>;
  };
}

export interface OutboxRunOptions {
  readonly endpoint: string;
  readonly runId: string;
  readonly rttMs: number;
  readonly emits: boolean;
}

const INVOCATION_MS = 900_000;

export async function measureOutboxDelivery(
  contender: Contender,
  sequence: Sequence,
  delivery: Delivery,
  run: OutboxRunOptions,
): Promise<OutboxMeasurement> {
  const config = {
    ...contender.clientConfig,
    endpoint: run.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  };
  const client = new DynamoDBClient(config);
  const counter = new RequestCounter();
  counter.attach(client);
  const recorder = new RequestRecorder();
  recorder.attach(client);
  attachNetworkModel(client, run.rttMs);
  // The relay is another function with its own client, over the same modelled network.
  const relayClient = new DynamoDBClient(config);
  const relayCounter = new RequestCounter();
  relayCounter.attach(relayClient);
  const relayRecorder = new RequestRecorder();
  relayRecorder.attach(relayClient);
  attachNetworkModel(relayClient, run.rttMs);
  // Setup, read-back and checks: neither counted nor delayed.
  const admin = localDynamoDbClient(run.endpoint);
  const prefix = `${run.runId}-${contender.name}`;
  const tables: BenchTables = {
    inbox: `${prefix}-inbox`,
    app: `${prefix}-app`,
    idempotency: `${prefix}-unused`,
    ...(run.emits ? { outbox: `${prefix}-outbox` } : {}),
  };
  await Promise.all([
    createInboxTable(admin, tables.inbox),
    createAppTable(admin, tables.app),
    ...(tables.outbox ? [createOutboxTable(admin, tables.outbox)] : []),
  ]);
  const stream = tables.outbox ? await OutboxStream.open(run.endpoint, admin, tables.outbox) : undefined;
  const relay = tables.outbox ? newRelayDrain(relayClient, tables.outbox, relayRecorder) : undefined;
  try {
    const container = contender.createContainer({ dynamoDb: client, tables });
    const written: RecordedAccess[] = [];
    let milliseconds = 0;
    let appends = 0;
    let appendWcu = 0;
    for (const batch of delivery.batches) {
      const context = createLambdaContext(
        { functionName: contender.name },
        { requestId: randomUUID(), remainingMs: untilDeadline(Date.now() + INVOCATION_MS) },
      );
      const started = performance.now();
      const response = await container.invoke(batch, context);
      milliseconds += performance.now() - started;
      if (response.batchItemFailures.length > 0) {
        throw new Error(
          `${contender.name} reported ${response.batchItemFailures.length} records on ${delivery.scenario}`,
        );
      }
      const { writes } = recorder.take();
      written.push(...writes);
      if (!stream || !relay) continue;
      const expected = writes.filter((write) => write.table === tables.outbox).length;
      const records = await stream.readNew((read) => appendsOf(read).length >= expected);
      // Each append's item as it was after the write: its stream image (an append only grows the row).
      for (const { sdk } of appendsOf(records)) {
        appendWcu += writeUnits(
          itemSizeBytes(sdk.dynamodb?.NewImage as Record<string, AttributeValue>),
          'transactional',
        );
      }
      appends += appendsOf(records).length;
      await drain(relay, records);
    }
    const billedWcu =
      appendWcu +
      (await priceWrites(
        admin,
        written.filter((w) => w.table !== tables.outbox),
      ));
    checkExactlyOnce(contender.name, sequence, await readBalances(admin, tables.app));
    if (relay && tables.outbox) await checkRelayed(admin, tables.outbox, relay.publisher.ids.size, appends);
    const relayTally = relayCounter.tally();
    return {
      contender: contender.name,
      scenario: delivery.scenario,
      rttMs: run.rttMs,
      records: delivery.records,
      milliseconds,
      tally: counter.tally(),
      transactionActions: countActions(written),
      billedWcu,
      appends,
      ...(relay
        ? { relay: { ...relay.tally, requests: relayTally.requests, byCommand: relayTally.byCommand } }
        : {}),
    };
  } finally {
    stream?.destroy();
    await Promise.all(
      [tables.inbox, tables.app, ...(tables.outbox ? [tables.outbox] : [])].map((TableName) =>
        admin.send(new DeleteTableCommand({ TableName })),
      ),
    );
    for (const c of [client, relayClient, admin]) c.destroy();
  }
}

function appendsOf(records: readonly StreamRead[]): StreamRead[] {
  return records.filter(({ sdk }) => sdk.dynamodb?.NewImage?.[A.change]?.S === OUTBOX_CHANGE.appended);
}

function countActions(writes: readonly RecordedAccess[]): number {
  return writes.filter((write) => write.transactional).length;
}

/**
 * The write units of the inbox rows and the effect's writes: a Put by its item, an Update by the item as
 * the delivery left it (each item here is written once, or only changes a number's digits).
 */
async function priceWrites(admin: DynamoDBClient, writes: readonly RecordedAccess[]): Promise<number> {
  const sizes = new Map<string, Map<string, number>>();
  for (const table of new Set(writes.filter((w) => !w.item).map((w) => w.table))) {
    sizes.set(table, await tableItemSizes(admin, table));
  }
  let wcu = 0;
  for (const write of writes) {
    if (write.kind === 'ConditionCheck') continue;
    const bytes = write.item ? itemSizeBytes(write.item) : sizes.get(write.table)?.get(write.pk);
    if (bytes === undefined) throw new Error(`no item ${write.pk} in ${write.table} to price`);
    wcu += writeUnits(bytes, write.transactional ? 'transactional' : 'standard');
  }
  return wcu;
}

/** Every appended event published once and the outbox empty: a relay that fell behind would fail here. */
async function checkRelayed(
  admin: DynamoDBClient,
  table: string,
  published: number,
  appends: number,
): Promise<void> {
  const left = (await tableItemSizes(admin, table)).size;
  if (published !== appends || left > 0) {
    throw new Error(
      `the relay published ${published} distinct events of ${appends} appended; ${left} rows left`,
    );
  }
}
