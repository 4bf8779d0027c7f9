/**
 * The relay half of an outbox schedule (docs/fault-tolerance.md#outbox-schedules): the real relayBatch
 * (lambdas/outbox-relay/relay-batch.ts) on the schedule's outbox table, driven as Lambda's stream event
 * source drives it on one shard: batches in stream order through the relay's filter, the checkpoint moved
 * by the partial batch response, the batch retried from the checkpoint after a crash or a lost response.
 * One invocation at a time: with ParallelizationFactor 1 Lambda never runs two on one shard, so
 * overlapping relay invocations are not a fault the real event source can produce (docs/aws-facts.md#
 * dynamodb-streams-and-lambdas-stream-event-source). It runs between the consumer's rounds and drains
 * after them, then the checks (outbox-checks.ts) judge the publish log.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { outboxEventId } from '../../lambdas/core/outbox-event-id.js';
import { PublishedIds } from '../../lambdas/outbox-relay/published-ids.js';
import { relayBatch } from '../../lambdas/outbox-relay/relay-batch.js';
import { RELAY_STREAM_FILTER } from '../../lambdas/outbox-relay/relay-stream-filter.js';
import { localDynamoDbClient } from '../dynamodb-local/client.js';
import type { ShardRecord } from '../streams/stream-event.js';
import { streamEvent } from '../streams/stream-event.js';
import { streamRecordFilter } from '../streams/stream-filter.js';
import { localStreamsClient } from '../streams/stream-shards.js';
import { checkOutbox, type OutboxViolation } from './outbox-checks.js';
import type { ExpectedEvent, OutboxPlan } from './outbox-plan.js';
import { expectedEvents } from './outbox-plan.js';
import {
  type CurrentInvocation,
  RelayInvocation,
  relayTableClient,
  SoakPublisher,
} from './outbox-relay-faults.js';
import {
  commitOrderOf,
  createOutboxTable,
  deleteOutboxTable,
  OutboxStream,
  outboxContents,
} from './outbox-stream.js';

/** What one schedule's relay did. */
export interface OutboxFigures {
  /** Events the committed records emitted. */
  readonly emitted: number;
  /** Messages the broker acknowledged, and those that were a second (or later) copy of an event. */
  readonly publishedCopies: number;
  readonly republished: number;
  readonly quarantined: number;
  readonly relayInvocations: number;
}

/** The schedule's clock and fault counter, bound once its run state exists. */
export interface RelayHooks {
  count: (kind: string) => void;
  nowMs: () => number;
}

/** Invocations after which a relay that has not drained the stream counts as stuck. */
const MAX_RELAY_INVOCATIONS = 400;

const passesRelayFilter = streamRecordFilter([RELAY_STREAM_FILTER]);

export class OutboxRun {
  readonly tableName: string;
  readonly #plan: OutboxPlan;
  readonly #consumer: string;
  readonly #admin: DynamoDBClient;
  readonly #client: DynamoDBClient;
  readonly #streams: DynamoDBStreamsClient;
  readonly #stream: OutboxStream;
  readonly #running: CurrentInvocation = { current: undefined };
  readonly #publisher: SoakPublisher;
  readonly #poison: Set<string>;
  readonly #hooks: RelayHooks;
  /** The relay's records (those its filter lets through), in stream order, and the checkpoint into them. */
  readonly #delivered: ShardRecord[] = [];
  #checkpoint = 0;
  #invocations = 0;
  /** The warm container's memory of what it published; a new container after a crash. */
  #container: PublishedIds | undefined;

  private constructor(init: {
    tableName: string;
    arn: string;
    endpoint: string;
    admin: DynamoDBClient;
    plan: OutboxPlan;
    consumer: string;
    events: number;
    hooks: RelayHooks;
  }) {
    this.tableName = init.tableName;
    this.#plan = init.plan;
    this.#consumer = init.consumer;
    this.#admin = init.admin;
    this.#client = relayTableClient(init.endpoint, this.#running);
    this.#streams = localStreamsClient(init.endpoint);
    this.#stream = new OutboxStream(this.#streams, init.arn);
    const pick = init.plan.poisonPick;
    // The first event of one order: refused whenever it is sent, however often its order is delivered.
    this.#poison = new Set(
      pick === undefined ? [] : [outboxEventId(init.consumer, `evt-${pick % Math.max(1, init.events)}`, 0)],
    );
    this.#publisher = new SoakPublisher(this.#running, this.#poison);
    this.#hooks = init.hooks;
  }

  static async open(options: {
    endpoint: string;
    tableName: string;
    plan: OutboxPlan;
    consumer: string;
    events: number;
    hooks: RelayHooks;
  }): Promise<OutboxRun> {
    const admin = localDynamoDbClient(options.endpoint);
    const arn = await createOutboxTable(admin, options.tableName);
    return new OutboxRun({ ...options, arn, admin });
  }

  /** One relay invocation, if the stream holds records past the checkpoint; false when it held none. */
  async step(): Promise<boolean> {
    for (const record of await this.#stream.readNew()) {
      if (passesRelayFilter(record.event)) this.#delivered.push(record);
    }
    const batch = this.#delivered.slice(this.#checkpoint, this.#checkpoint + this.#plan.batchSize);
    if (batch.length === 0) return false;
    const index = this.#invocations++;
    const invocation = new RelayInvocation(
      index,
      this.#plan.faults.filter((fault) => fault.invocation === index),
      (kind) => this.#hooks.count(kind),
    );
    this.#running.current = invocation;
    this.#container ??= new PublishedIds();
    let failed: string | undefined;
    let threw = false;
    try {
      const { response } = await relayBatch(streamEvent(batch), {
        table: { client: this.#client, tableName: this.tableName },
        publisher: this.#publisher,
        clock: { nowMs: () => this.#hooks.nowMs() },
        log: { warn: () => undefined, error: () => undefined },
        publishedIds: this.#container,
      });
      failed = response.batchItemFailures[0]?.itemIdentifier;
    } catch {
      // Lambda retries a batch whose invocation failed as a whole, from the same checkpoint.
      threw = true;
    } finally {
      this.#running.current = undefined;
    }
    const lost = invocation.dead || invocation.strikes('crash-before-checkpoint', 0);
    if (!invocation.dead && lost) invocation.fired('crash-before-checkpoint');
    if (lost) {
      this.#container = undefined;
      return true;
    }
    if (threw) {
      this.#hooks.count('relay:batch-threw');
      return true;
    }
    if (failed === undefined) this.#checkpoint += batch.length;
    else {
      this.#hooks.count('relay:record-reported');
      const at = batch.findIndex((record) => record.sequenceNumber === failed);
      this.#checkpoint += Math.max(0, at);
    }
    return true;
  }

  /** Invokes until the stream is relayed to its end; false when the relay never got there. */
  async drain(): Promise<boolean> {
    while (this.#invocations < MAX_RELAY_INVOCATIONS) {
      if (!(await this.step())) return true;
    }
    return false;
  }

  /** The checks, given the dedup keys whose inbox rows are COMPLETED. */
  async check(completedKeys: readonly string[]): Promise<{
    violations: OutboxViolation[];
    figures: OutboxFigures;
  }> {
    await this.#stream.readNew();
    const committed = new Map<string, ExpectedEvent>();
    for (const key of completedKeys) {
      for (const event of expectedEvents(this.#plan, this.#consumer, key)) committed.set(event.id, event);
    }
    const contents = await outboxContents(this.#admin, this.tableName);
    const published = this.#publisher.log;
    const violations = checkOutbox({
      committed,
      commitOrder: commitOrderOf(this.#stream.records.map((record) => record.event)),
      published,
      poison: this.#poison,
      ...contents,
    });
    const unique = new Set(published.map((copy) => copy.id)).size;
    return {
      violations,
      figures: {
        emitted: committed.size,
        publishedCopies: published.length,
        republished: published.length - unique,
        quarantined: contents.quarantined.length,
        relayInvocations: this.#invocations,
      },
    };
  }

  async close(): Promise<void> {
    await deleteOutboxTable(this.#admin, this.tableName);
    this.#client.destroy();
    this.#streams.destroy();
    this.#admin.destroy();
  }
}
