/**
 * Outbox schedules (docs/fault-tolerance.md#outbox-schedules): what the consumer emits for each order and
 * the faults the relay meets, both drawn from the schedule's seed so `npm run soak -- --outbox --seed S`
 * replays them. The events go to a few keys so keys collide across records, and a record sometimes emits
 * two events to one key (two events of one append).
 */
import fc from 'fast-check';
import { outboxEventId } from '../../lambdas/core/outbox-event-id.js';
import type { OutboxEvent } from '../../lambdas/core/outbox-rows.js';

/** The topic the soak's consumer emits to. */
export const OUTBOX_TOPIC = 'soak-payments';

/**
 * Where a relay invocation dies or fails (docs/outbox.md#the-relay):
 * - crash-after-produce: the nth produce was acknowledged, then the process died before any removal;
 * - crash-after-removal: the nth removal was applied, then the process died (the checkpoint never moved);
 * - crash-before-checkpoint: every record done, the response lost;
 * - transient-produce: the nth produce throws a TransientPublishError (nothing written);
 * - removal-failure: the nth removal request fails `burst` times in a row inside the SDK's retries.
 */
export type RelayFaultKind =
  | 'crash-after-produce'
  | 'crash-after-removal'
  | 'crash-before-checkpoint'
  | 'transient-produce'
  | 'removal-failure';

export interface RelayFault {
  readonly kind: RelayFaultKind;
  /** The relay invocation (0-based, counted over the schedule) it strikes. */
  readonly invocation: number;
  readonly nth: number;
  readonly burst: number;
}

export interface OutboxPlan {
  /** Per order event: how many events it emits (1 or 2) and to which key each goes. */
  readonly keysPerEvent: readonly (readonly number[])[];
  /** Stream records per relay invocation (the mapping's BatchSize). */
  readonly batchSize: number;
  readonly faults: readonly RelayFault[];
  /** When set, the committed event at this index (of the sorted ids) is refused by the broker for good. */
  readonly poisonPick?: number;
}

/** Keys drawn from few so records collide on them (their order across records is what is checked). */
const KEYS = 3;

export function outboxPlanArbitrary(events: number): fc.Arbitrary<OutboxPlan> {
  const key = fc.integer({ min: 0, max: KEYS - 1 });
  return fc
    .record({
      keysPerEvent: fc.array(fc.array(key, { minLength: 1, maxLength: 2 }), {
        minLength: events,
        maxLength: events,
      }),
      batchSize: fc.integer({ min: 1, max: 8 }),
      faults: fc.array(
        fc.record({
          kind: fc.constantFrom<RelayFaultKind>(
            'crash-after-produce',
            'crash-after-removal',
            'crash-before-checkpoint',
            'transient-produce',
            'removal-failure',
          ),
          invocation: fc.integer({ min: 0, max: 8 }),
          nth: fc.integer({ min: 0, max: 2 }),
          // Three in a row outlast the relay client's SDK retries (maxAttempts 3): the record is reported.
          burst: fc.constantFrom(1, 3),
        }),
        { maxLength: 4 },
      ),
      poison: fc.option(fc.nat({ max: 1_000 }), { freq: 3 }),
    })
    .map(({ poison, ...plan }) => (poison === null ? plan : { ...plan, poisonPick: poison }));
}

/** The plan of a schedule's seed (its own stream of draws: the consumer's schedule is unchanged). */
export function outboxPlanFromSeed(seed: number, events: number): OutboxPlan {
  const [drawn] = fc.sample(fc.noBias(outboxPlanArbitrary(events)), { seed: seed ^ 0x5a5a5a, numRuns: 1 });
  if (!drawn) throw new Error(`no outbox plan drawn for seed ${seed}`);
  return drawn;
}

/** One event the consumer emits, with its id: what the checks expect to see published. */
export interface ExpectedEvent {
  readonly id: string;
  readonly topic: string;
  readonly key: string;
  readonly value: string;
}

/**
 * The events an order's effect emits, a function of its dedup key alone: a payload conflict or a
 * redelivery emits the same events, so only the inbox decides whether they are appended.
 */
export function emittedEvents(plan: OutboxPlan, consumer: string, dedupKey: string): OutboxEvent[] {
  const index = Number(/^evt-(\d+)$/.exec(dedupKey)?.[1] ?? Number.NaN);
  const keys = plan.keysPerEvent[index] ?? [0];
  return keys.map((k, position) => ({
    topic: OUTBOX_TOPIC,
    key: `${consumer}.k${k}`,
    value: JSON.stringify({ source: dedupKey, position }),
    headers: { type: 'PaymentRequested' },
  }));
}

export function expectedEvents(plan: OutboxPlan, consumer: string, dedupKey: string): ExpectedEvent[] {
  return emittedEvents(plan, consumer, dedupKey).map((event, position) => ({
    id: outboxEventId(consumer, dedupKey, position),
    topic: event.topic,
    key: event.key,
    value: event.value as string,
  }));
}
