/**
 * The outbox's promise, checked on one schedule's end (docs/outbox.md, docs/fault-tolerance.md#outbox-
 * schedules): what the consumer's committed records emitted against what the relay published, in the
 * order the appends landed in their queue rows. Pure, so its tests can feed it a broken publish log.
 */
import type { ExpectedEvent } from './outbox-plan.js';

/** One message the broker acknowledged, in acknowledgement order. */
export interface PublishedCopy {
  readonly topic: string;
  readonly key: string;
  /** Its `event_id` header. */
  readonly id: string | undefined;
  readonly value: string;
}

export interface OutboxObservation {
  /** The events of the records whose inbox rows are COMPLETED, by id. */
  readonly committed: ReadonlyMap<string, ExpectedEvent>;
  /**
   * Per queue row (rowName(topic, key)), the ids in the order the appends put them in the row, as the
   * stream's images show them: the commit order.
   */
  readonly commitOrder: ReadonlyMap<string, readonly string[]>;
  readonly published: readonly PublishedCopy[];
  /** Ids the broker refuses for good. */
  readonly poison: ReadonlySet<string>;
  /** Queue rows still in the outbox at the end, with their ids. */
  readonly leftInQueues: readonly { readonly pk: string; readonly ids: readonly string[] }[];
  /** The event id of each quarantine row at the end. */
  readonly quarantined: readonly string[];
}

export interface OutboxViolation {
  readonly invariant: string;
  readonly detail: string;
}

export function rowName(topic: string, key: string): string {
  return `${topic}/${key}`;
}

export function checkOutbox(observation: OutboxObservation): OutboxViolation[] {
  const violations: OutboxViolation[] = [];
  const violate = (invariant: string, detail: string) => violations.push({ invariant, detail });
  const { committed, poison, published } = observation;
  const copies = new Map<string, PublishedCopy[]>();
  for (const copy of published) {
    if (copy.id === undefined) {
      violate('outbox-copies-agree', `a message on ${rowName(copy.topic, copy.key)} has no event_id header`);
      continue;
    }
    copies.set(copy.id, [...(copies.get(copy.id) ?? []), copy]);
  }

  // 1. Every committed event published at least once, unless the broker refused it for good.
  for (const [id, event] of committed) {
    if (!poison.has(id) && !copies.has(id)) {
      violate(
        'outbox-published',
        `event ${id} (${event.value} on ${rowName(event.topic, event.key)}) committed, never published`,
      );
    }
    if (poison.has(id) && copies.has(id)) violate('outbox-published', `poison event ${id} was published`);
  }

  // 3. Nothing published, or appended, that no committed record emitted.
  for (const [id, list] of copies) {
    if (!committed.has(id)) {
      violate(
        'outbox-phantom',
        `event ${id} (${list[0]?.value}) published ${list.length}x; no committed record emitted it`,
      );
    }
  }
  for (const [row, ids] of observation.commitOrder) {
    for (const id of ids) {
      if (!committed.has(id))
        violate('outbox-phantom', `event ${id} appended to ${row}; no committed record emitted it`);
    }
  }

  // 4. Every copy carries the id's own topic, key and value.
  for (const [id, list] of copies) {
    const event = committed.get(id);
    if (!event) continue;
    for (const copy of list) {
      if (copy.topic !== event.topic || copy.key !== event.key || copy.value !== event.value) {
        violate(
          'outbox-copies-agree',
          `a copy of ${id} is ${copy.value} on ${rowName(copy.topic, copy.key)}; the event is ${event.value} on ${rowName(event.topic, event.key)}`,
        );
      }
    }
  }

  // 2. Per key, the first copies in commit order (a poison event is taken out of its key's order).
  const firstCopies = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const copy of published) {
    if (copy.id === undefined || seen.has(copy.id) || poison.has(copy.id)) continue;
    seen.add(copy.id);
    const row = rowName(copy.topic, copy.key);
    firstCopies.set(row, [...(firstCopies.get(row) ?? []), copy.id]);
  }
  for (const [row, order] of firstCopies) {
    const expected = (observation.commitOrder.get(row) ?? []).filter((id) => seen.has(id));
    const got = order.filter((id) => committed.has(id));
    if (expected.join() !== got.join()) {
      violate('outbox-order', `${row}: first copies ${short(got)}, committed ${short(expected)}`);
    }
  }

  // 5. The outbox ends empty but for one quarantine row per poison event.
  for (const row of observation.leftInQueues) {
    violate('outbox-drained', `queue row ${row.pk} still holds ${short(row.ids)}`);
  }
  const quarantineRows = new Map<string, number>();
  for (const id of observation.quarantined) quarantineRows.set(id, (quarantineRows.get(id) ?? 0) + 1);
  for (const [id, count] of quarantineRows) {
    if (!poison.has(id)) violate('outbox-drained', `event ${id} quarantined; the broker never refused it`);
    else if (count !== 1) violate('outbox-drained', `poison event ${id} has ${count} quarantine rows`);
  }
  for (const id of poison) {
    if (committed.has(id) && !quarantineRows.has(id)) {
      violate('outbox-drained', `poison event ${id} has no quarantine row`);
    }
  }
  return violations;
}

function short(ids: readonly string[]): string {
  return `[${ids.map((id) => id.slice(0, 8)).join(', ')}]`;
}
