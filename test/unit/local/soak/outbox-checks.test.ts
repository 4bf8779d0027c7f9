/**
 * The outbox schedules' checks (local/soak/outbox-checks.ts) can fail: each invariant fed a publish log or
 * an end state that breaks it, next to the clean one that passes.
 */
import { describe, expect, it } from 'vitest';
import { outboxEventId } from '../../../../lambdas/core/outbox-event-id.js';
import {
  checkOutbox,
  type OutboxObservation,
  type PublishedCopy,
  rowName,
} from '../../../../local/soak/outbox-checks.js';
import { type ExpectedEvent, OUTBOX_TOPIC } from '../../../../local/soak/outbox-plan.js';
import { commitOrderOf } from '../../../../local/soak/outbox-stream.js';

const CONSUMER = 'soak-test';
const event = (source: number, key: string): ExpectedEvent => ({
  id: outboxEventId(CONSUMER, `evt-${source}`, 0),
  topic: OUTBOX_TOPIC,
  key,
  value: JSON.stringify({ source: `evt-${source}`, position: 0 }),
});
const a1 = event(1, 'k0');
const a2 = event(2, 'k0');
const b3 = event(3, 'k1');
const copy = (e: ExpectedEvent): PublishedCopy => ({ topic: e.topic, key: e.key, id: e.id, value: e.value });

function observation(overrides: Partial<OutboxObservation> = {}): OutboxObservation {
  return {
    committed: new Map([a1, a2, b3].map((e) => [e.id, e])),
    commitOrder: new Map([
      [rowName(OUTBOX_TOPIC, 'k0'), [a1.id, a2.id]],
      [rowName(OUTBOX_TOPIC, 'k1'), [b3.id]],
    ]),
    // A republish of a1 after a2: a later copy, not a first one.
    published: [copy(a1), copy(b3), copy(a2), copy(a1)],
    poison: new Set(),
    leftInQueues: [],
    quarantined: [],
    ...overrides,
  };
}

const invariants = (o: OutboxObservation) => checkOutbox(o).map((v) => v.invariant);

describe('outbox checks', () => {
  it('pass a log with every committed event, first copies in commit order, republishes after them', () => {
    expect(checkOutbox(observation())).toEqual([]);
  });

  it('1: a committed event never published', () => {
    expect(invariants(observation({ published: [copy(a1), copy(b3)] }))).toEqual(['outbox-published']);
  });

  it('1: a poison event is excused from publication, but not if it was published', () => {
    const poisoned = { poison: new Set([a2.id]), quarantined: [a2.id] };
    expect(invariants(observation({ ...poisoned, published: [copy(a1), copy(b3)] }))).toEqual([]);
    expect(invariants(observation(poisoned))).toContain('outbox-published');
  });

  it("2: a key's first copies out of commit order", () => {
    expect(invariants(observation({ published: [copy(a2), copy(a1), copy(b3)] }))).toEqual(['outbox-order']);
  });

  it('2: a poison event is taken out of its key’s order (its later events go ahead)', () => {
    const o = observation({
      poison: new Set([a1.id]),
      quarantined: [a1.id],
      published: [copy(a2), copy(b3)],
    });
    expect(checkOutbox(o)).toEqual([]);
  });

  it('3: a published event no committed record emitted (a rolled-back record’s)', () => {
    const phantom = event(9, 'k0');
    expect(invariants(observation({ published: [...observation().published, copy(phantom)] }))).toEqual([
      'outbox-phantom',
    ]);
  });

  it('3: an appended event no committed record emitted', () => {
    const phantom = event(9, 'k1');
    const commitOrder = new Map(observation().commitOrder);
    commitOrder.set(rowName(OUTBOX_TOPIC, 'k1'), [b3.id, phantom.id]);
    expect(invariants(observation({ commitOrder }))).toEqual(['outbox-phantom']);
  });

  it('4: a copy with another value, or without its event_id', () => {
    const changed = { ...copy(a1), value: '{"source":"evt-1","position":1}' };
    expect(invariants(observation({ published: [...observation().published, changed] }))).toEqual([
      'outbox-copies-agree',
    ]);
    const bare = { ...copy(a1), id: undefined };
    expect(invariants(observation({ published: [...observation().published, bare] }))).toEqual([
      'outbox-copies-agree',
    ]);
  });

  it('5: events left in a queue row, a poison event without its quarantine row, a quarantine row for a good event', () => {
    expect(invariants(observation({ leftInQueues: [{ pk: 'queue#x', ids: [a2.id] }] }))).toEqual([
      'outbox-drained',
    ]);
    expect(invariants(observation({ poison: new Set([a2.id]), published: [copy(a1), copy(b3)] }))).toEqual([
      'outbox-drained',
    ]);
    expect(invariants(observation({ quarantined: [b3.id] }))).toEqual(['outbox-drained']);
  });

  it("reads a row's commit order from its appended images, each id where it first shows", () => {
    const image = (ids: string[], change = 'appended') => ({
      dynamodb: {
        NewImage: {
          change: { S: change },
          topic: { S: OUTBOX_TOPIC },
          kafka_key: { S: 'k0' },
          events: { L: ids.map((id) => ({ M: { id: { S: id } } })) },
        },
      },
    });
    const order = commitOrderOf([image([a1.id]), image([a1.id, a2.id]), image([a2.id], 'published')]);
    expect(order.get(rowName(OUTBOX_TOPIC, 'k0'))).toEqual([a1.id, a2.id]);
  });
});
