/**
 * A Postgres consumer's spans (docs/tracing.md#store-requests): `createInboxConsumer({ store: postgresInbox(),
 * tracing })` on PGlite (and Debian's Postgres where installed), its transaction a client span of the record
 * it commits, or of its partition linked to each record when a group commits together.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createInboxConsumer } from '../../../lambdas/core/index.js';
import { openTelemetryTracing } from '../../../lambdas/opentelemetry/index.js';
import { postgresInbox } from '../../../lambdas/postgres/index.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';
import { describeOnPostgres, type FreshSchema } from '../../support/postgres.js';
import { inboxDatabase } from '../../support/postgres-inbox.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

describeOnPostgres('a traced consumer on Postgres', (target) => {
  let db: FreshSchema;
  beforeEach(async () => {
    db = await inboxDatabase(target.url());
    await db.pool.query(`insert into accounts values ('empty', 0)`);
    exporter.reset();
  });
  afterEach(() => db.drop());

  /** Offsets from 100 on overdraw an account: its CHECK refuses the update, and the record is quarantined. */
  const invoke = (offsets: readonly number[]) => {
    const clock = new ManualClock();
    const handler = createInboxConsumer({
      store: postgresInbox({ pool: db.pool, settings: { schema: db.schema } }),
      effect: ({ record }) => ({
        kind: 'sql',
        run: async (sql) =>
          void (await sql.query(
            (record.offset ?? 0) >= 100
              ? `update accounts set balance = balance - 1 where id = 'empty'`
              : 'select 1',
          )),
      }),
      settings: { consumerName: 'orders' },
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      tracing: openTelemetryTracing({ tracerProvider: provider }),
    });
    return handler(
      kafkaEvent(offsets.map((offset) => orderRecord(offset, { eventId: `pg-${offset}` }))),
      lambdaContext(clock),
    );
  };
  const spans = () => exporter.getFinishedSpans();
  const recordAt = (offset: number): ReadableSpan => {
    const found = spans().find(
      (span) => span.name === 'process orders' && span.attributes['kafka.offset'] === offset,
    );
    if (!found) throw new Error(`no record span at ${offset}`);
    return found;
  };

  it("makes a record's transaction its child, named for Postgres with the records it carries", async () => {
    expect((await invoke([1])).batchItemFailures).toEqual([]);
    const commit = spans().find((span) => span.name === 'postgresql commit');
    expect(commit?.parentSpanContext?.spanId).toBe(recordAt(1).spanContext().spanId);
    expect(commit?.attributes).toMatchObject({
      'db.system.name': 'postgresql',
      'db.operation.name': 'commit',
      'msk_inbox.transaction.records': 1,
    });
  });

  it("makes the quarantine row a record's refused transaction leads to that record's own request", async () => {
    expect((await invoke([100])).batchItemFailures).toEqual([]);
    const record = recordAt(100);
    expect(record.attributes['msk_inbox.outcome']).toBe('quarantined');
    const requests = spans().filter((span) => span.parentSpanContext?.spanId === record.spanContext().spanId);
    expect(requests.map((span) => span.name)).toEqual(['postgresql commit', 'postgresql quarantine']);
  });

  it('makes a group of records one transaction, linked to each record', async () => {
    expect((await invoke([1, 2, 3])).batchItemFailures).toEqual([]);
    const commits = spans().filter((span) => span.name === 'postgresql commit');
    expect(commits).toHaveLength(1);
    expect(commits[0]?.attributes['msk_inbox.transaction.records']).toBe(3);
    expect(commits[0]?.links.map((link) => link.context.spanId).sort()).toEqual(
      [1, 2, 3].map((offset) => recordAt(offset).spanContext().spanId).sort(),
    );
  });
});
