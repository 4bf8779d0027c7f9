/**
 * The promise a hostile batch must not break (docs/fault-tolerance.md#poison-records): delivered twice,
 * with no fault injected, the invocation never throws for a well-formed envelope, the response names no
 * record, every record ends applied, skipped, a duplicate or quarantined (with its row written), and the
 * second delivery applies nothing new.
 */
import type { KafkaBatchResponse } from '../../lambdas/core/kafka-event.js';
import type { OutcomeStatus, RecordOutcome } from '../../lambdas/core/outcome.js';
import type { PoisonEvent } from './poison-batches.js';

export interface ConsumerUnderTest {
  invoke(event: PoisonEvent): Promise<{ response: KafkaBatchResponse; outcomes: readonly RecordOutcome[] }>;
  /** What the effects and the inbox hold, in a form two calls can compare. */
  appliedState(): Promise<string>;
  /** Whether the QUARANTINED row with this key part exists. */
  hasQuarantineRow(quarantineKey: string): Promise<boolean>;
}

const FINAL: ReadonlySet<OutcomeStatus> = new Set(['processed', 'duplicate', 'skipped', 'quarantined']);

/** Delivers the batch twice and returns what broke the promise (empty when nothing did). */
export async function checkPoisonPromise(event: PoisonEvent, consumer: ConsumerUnderTest): Promise<string[]> {
  const violations: string[] = [];
  const deliver = async (label: string) => {
    try {
      return await consumer.invoke(event);
    } catch (error) {
      violations.push(
        `${label} delivery threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
      );
      return undefined;
    }
  };
  const check = (label: string, delivered: Awaited<ReturnType<ConsumerUnderTest['invoke']>>) => {
    const named = delivered.response.batchItemFailures.map(
      (f) => `${f.itemIdentifier.partition}@${f.itemIdentifier.offset}`,
    );
    if (named.length > 0) violations.push(`${label} delivery named ${named.join(', ')}`);
    const expected = Object.values(event.records).reduce((sum, list) => sum + list.length, 0);
    if (delivered.outcomes.length !== expected) {
      violations.push(`${label} delivery gave ${delivered.outcomes.length} outcomes for ${expected} records`);
    }
    for (const outcome of delivered.outcomes) {
      if (!FINAL.has(outcome.status)) {
        violations.push(
          `${label} delivery left ${outcome.coordinates} ${outcome.status} (${outcome.reason}: ${outcome.detail})`,
        );
      }
    }
  };

  const first = await deliver('first');
  if (first === undefined) return violations;
  check('first', first);
  for (const outcome of first.outcomes) {
    if (outcome.status === 'quarantined' && !(await consumer.hasQuarantineRow(outcome.quarantineKey ?? ''))) {
      violations.push(`${outcome.coordinates} quarantined without its row`);
    }
  }
  const before = await consumer.appliedState();
  const second = await deliver('second');
  if (second === undefined) return violations;
  check('second', second);
  const applied = second.outcomes.filter((o) => o.status === 'processed').map((o) => o.coordinates);
  if (applied.length > 0) violations.push(`second delivery applied ${applied.join(', ')} again`);
  if ((await consumer.appliedState()) !== before) violations.push('second delivery changed what is stored');
  return violations;
}
