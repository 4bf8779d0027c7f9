/**
 * One round of the Postgres relay (docs/postgres.md#the-relay), in one READ COMMITTED transaction on one
 * connection: claim up to `keysPerRound` keys no other relay holds (their head events locked FOR UPDATE
 * SKIP LOCKED), and for each publish its pending events in seq order and delete them,
 * or move the ones Kafka refuses for good to outbox_quarantine. COMMIT releases the keys.
 *
 * Kafka first, the database after, in the same transaction: a crash or a lost COMMIT after a send leaves
 * the events pending, and they are published again (at least once, each with its `event_id`, so the next
 * consumer's inbox absorbs the copy). Nothing is deleted that Kafka did not acknowledge.
 */

import { OUTBOX_LIMITS } from '../../core/outbox-rows.js';
import { publishedOf, publishInOrder, type Settled } from '../../outbox-relay/publish-in-order.js';
import type { Publisher } from '../../outbox-relay/publisher.js';
import { sqlStateOf } from '../sqlstate.js';
import type { PendingEvent } from './outbox-columns.js';
import type { OutboxClient, OutboxRelayQueries } from './relay-queries.js';

export interface RoundDeps {
  readonly queries: OutboxRelayQueries;
  readonly publisher: Publisher;
  readonly keysPerRound: number;
  readonly nowMs: () => number;
  /** The invocation's time left: no key's send is started with less than KEY_SEND_RESERVE_MS. */
  readonly remainingMs: () => number;
}

/** What a round did. */
export interface RoundReport {
  readonly keys: number;
  readonly published: number;
  readonly quarantined: number;
  /**
   * Sends that may pass later (the broker unreachable, too few in-sync replicas, a topic the role may not
   * write): their keys' events stay pending, and the rest of the round skipped their topics.
   */
  readonly publishFailures: readonly unknown[];
  /** Now minus the commit time of each event published, the largest. */
  readonly publishLagMs: number | undefined;
  /** Events may be waiting that this round did not reach: the caller claims again at once. */
  readonly more: boolean;
}

/**
 * Events read per key per round. A round's send for a key is also cut at OUTBOX_LIMITS.pendingBytes (what
 * one DynamoDB queue row may hold, well inside Kafka's default 1 MB request), so a key with a long backlog
 * goes out in several rounds, in order.
 */
export const EVENTS_PER_KEY = 100;

/**
 * A key's send is not started with less time left than this: kafkajs's retries of a request (about 10
 * seconds) and the round's deletes fit in it, and the invocation ends before Lambda's timeout, with the
 * transaction closed.
 */
export const KEY_SEND_RESERVE_MS = 15_000;

export async function relayRound(client: OutboxClient, deps: RoundDeps): Promise<RoundReport> {
  await client.query('BEGIN');
  try {
    const report = await relayClaimedKeys(client, deps);
    await client.query('COMMIT');
    return report;
  } catch (error) {
    // Without a SQLSTATE the connection itself failed (a driver timeout, a cut socket): a ROLLBACK would
    // only wait behind it. The caller destroys the connection, and the server rolls back as it goes.
    if (sqlStateOf(error) !== undefined) await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function relayClaimedKeys(client: OutboxClient, deps: RoundDeps): Promise<RoundReport> {
  const keys = await deps.queries.claimKeys(client, { limit: deps.keysPerRound });
  let published = 0;
  let quarantined = 0;
  let publishLagMs: number | undefined;
  const publishFailures: unknown[] = [];
  // A topic whose send failed for now is not sent to again this round: one key that cannot be published
  // (its partition offline, a topic the role may not write) must not hold the others, which the claim
  // hands out oldest head first, its own first every round.
  const failingTopics = new Set<string>();
  // Every key was claimed: the next round may find more than this one could take.
  let more = keys.length === deps.keysPerRound;
  for (const key of keys) {
    if (deps.remainingMs() < KEY_SEND_RESERVE_MS) return report({ more: true });
    if (failingTopics.has(key.topic)) continue;
    const pending = await deps.queries.pendingEvents(client, key, { limit: EVENTS_PER_KEY });
    const events = withinRequestBytes(pending);
    if (events.length < pending.length || pending.length === EVENTS_PER_KEY) more = true;
    const settled: Settled<PendingEvent>[] = [];
    let failure: unknown;
    try {
      await publishInOrder({ topic: key.topic, kafkaKey: key.kafkaKey, events }, deps.publisher, settled);
    } catch (error) {
      failure = error ?? new Error('the send failed');
    }
    // What Kafka acknowledged before a failure is deleted too: the retry sends only the rest.
    const sent = publishedOf(settled);
    await deps.queries.deletePublished(
      client,
      sent.map((event) => event.id),
    );
    for (const { event, quarantine } of settled) {
      if (
        quarantine &&
        (await deps.queries.quarantineEvent(client, event, quarantine.reason, quarantine.message))
      ) {
        quarantined += 1;
      }
    }
    published += sent.length;
    const nowMs = deps.nowMs();
    for (const event of sent) publishLagMs = Math.max(publishLagMs ?? 0, nowMs - event.committedAt);
    if (failure !== undefined) {
      publishFailures.push(failure);
      failingTopics.add(key.topic);
    }
  }
  // After a failure the caller waits its poll interval before claiming again, rather than at once.
  return report({ more: more && publishFailures.length === 0 });

  function report(end: { readonly more: boolean }): RoundReport {
    return { keys: keys.length, published, quarantined, publishFailures, publishLagMs, more: end.more };
  }
}

/** The longest prefix within OUTBOX_LIMITS.pendingBytes, and never less than one event. */
function withinRequestBytes(events: readonly PendingEvent[]): PendingEvent[] {
  let bytes = 0;
  const taken: PendingEvent[] = [];
  for (const event of events) {
    bytes += event.bytes;
    if (taken.length > 0 && bytes > OUTBOX_LIMITS.pendingBytes) break;
    taken.push(event);
  }
  return taken;
}
