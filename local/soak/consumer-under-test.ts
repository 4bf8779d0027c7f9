/**
 * The consumer under test: the orders consumer's handler chain exactly as its Lambda entry builds it once
 * per container (createInboxConsumer, here through createObservedInboxConsumer for the soak's clock and
 * outcomes), on the store under test (soak-store.ts: DynamoDB with its `transact` effect, Postgres with its
 * `sql` effect, Redis in side-effect mode only), in transactional mode as deployed, and in side-effect mode
 * with an effect that calls a recording fake of an external service (external-ledger.ts).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import {
  createObservedInboxConsumer,
  type InboxConsumerHooks,
} from '../../lambdas/core/create-inbox-consumer.js';
import type { EffectPlan, SideEffectPlan } from '../../lambdas/core/effect.js';
import type { InboxEffectInput } from '../../lambdas/core/index.js';
import type { RecordOutcome } from '../../lambdas/core/outcome.js';
import type { HandlerSettings } from '../../lambdas/core/settings.js';
import type { OrderPlaced } from '../../sample/order-consumer/order-placed.js';
import type { LambdaContext } from '../esm/lambda-function.js';
import type { MskEvent } from '../esm/msk-event.js';
import { attemptClock, currentAttempt } from './attempt.js';
import type { ExternalLedger } from './external-ledger.js';
import { emittedEvents } from './outbox-plan.js';
import type { RunState } from './run-state.js';
import { DEADLINE_MARGIN_MS, DEDUP_TTL_SECONDS, LEASE_MARGIN_MS } from './schedule.js';
import type { OrderConsumer } from './soak-store.js';

export type Invoke = (event: MskEvent, context: LambdaContext) => Promise<unknown>;

/** One execution environment: its handler, and its end (connections closed). */
export interface Container {
  readonly invoke: Invoke;
  retire(): Promise<void>;
}

function settings(state: RunState): Partial<HandlerSettings> {
  return {
    consumerName: state.workload.consumer,
    dedupTtlSeconds: DEDUP_TTL_SECONDS,
    leaseMarginMs: LEASE_MARGIN_MS,
    deadlineMarginMs: DEADLINE_MARGIN_MS,
    partitionConcurrency: state.schedule.partitionConcurrency,
    ...(state.schedule.ordering.by === 'key'
      ? { ordering: 'key', keyConcurrency: state.schedule.ordering.keyConcurrency }
      : {}),
  };
}

/**
 * A fresh execution environment: the handler chain built once per container, as a Lambda entry does; in
 * side-effect mode with the external effect.
 */
export function newContainer(state: RunState): Container {
  const container = state.store.container(state.workload.consumer, state.schedule.partitionConcurrency);
  const { consumer, storeOptions } = container;
  const common = {
    schema: consumer.schema,
    skip: consumer.skip,
    settings: {
      ...container.settings,
      ...settings(state),
      ...(state.outbox ? { outboxTableName: state.outbox.run.tableName } : {}),
    },
    logger: new Logger({ serviceName: state.workload.consumer, logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'MskInboxSoak', serviceName: state.workload.consumer }),
  };
  const hooks = {
    clock: attemptClock(state.time),
    observe: { batchProcessed: (_summary, outcomes) => observe(state, outcomes) },
  } satisfies InboxConsumerHooks;
  let handler: Invoke;
  if ('sideEffectStore' in storeOptions) {
    // store-faults.ts#STORE_MODES draws only side-effect schedules for such a store.
    if (state.schedule.mode !== 'side-effect')
      throw new Error('a side-effect store runs side-effect schedules');
    handler = createObservedInboxConsumer(
      { ...common, store: storeOptions.sideEffectStore, effect: sideEffect(state.ledger, consumer.effect) },
      hooks,
    );
  } else {
    const effect = state.outbox
      ? emitting(state, consumer.effect)
      : state.schedule.mode === 'side-effect'
        ? sideEffect(state.ledger, consumer.effect)
        : consumer.effect;
    handler = createObservedInboxConsumer({ ...common, ...storeOptions, effect }, hooks);
  }
  const retire = () => container.retire();
  if (state.mutation === 'ack-everything') {
    return {
      invoke: async (event, context) => {
        await handler(event, context);
        return { batchItemFailures: [] };
      },
      retire,
    };
  }
  return { invoke: (event, context) => handler(event, context), retire };
}

/** Side-effect mode: claim → call the external service → complete, fenced by the lease. */
function sideEffect(ledger: ExternalLedger, transactional: OrderConsumer['effect']) {
  // Same validation and rejections as the sample service; only the effect moves outside DynamoDB.
  return async (input: InboxEffectInput<OrderPlaced>): Promise<SideEffectPlan> => {
    const plan = await transactional(input);
    // The store's plan of writes (DynamoDB writes or SQL) becomes the external call.
    if (plan.kind === 'call' || plan.kind === 'skip') return plan;
    const order = input.event;
    const key = input.dedupKey;
    return {
      kind: 'call',
      run: async () => {
        const attempt = currentAttempt.getStore();
        if (!attempt) throw new Error('effect outside an attempt');
        attempt.assertAlive('effect start');
        const n = attempt.occurrence('effect');
        // Inside the effect from the start: holding the lease, a stalled attempt still counts as running it.
        ledger.begin(key, attempt);
        try {
          if (attempt.stallPlan?.point === 'in-effect' && attempt.stallPlan.nth === n) {
            await attempt.stallHere('in-effect');
            attempt.assertAlive('after the stall');
          }
          const external = attempt.plan.external?.nth === n ? attempt.plan.external.kind : undefined;
          if (external === 'error-before-apply') {
            attempt.fault('external:error-before-apply');
            throw new Error('payment service unavailable (503)');
          }
          const application = ledger.apply(key, order.amount, attempt);
          if (external === 'timeout-after-apply') {
            attempt.fault('external:timeout-after-apply');
            application.timedOutAfterApply = true;
            throw new Error('payment service timed out (it applied the charge)');
          }
          attempt.crashIf('after-effect', n);
        } finally {
          ledger.end(key, attempt);
        }
      },
    };
  };
}

/**
 * Outbox schedules: the order's writes with the events it emits (outbox-plan.ts), appended in the same
 * transaction as its inbox row (docs/outbox.md#emitting).
 */
function emitting(state: RunState, transactional: OrderConsumer['effect']) {
  return async (input: InboxEffectInput<OrderPlaced>): Promise<EffectPlan> => {
    const plan = await transactional(input);
    if (plan.kind !== 'transact' || !state.outbox) return plan;
    return { ...plan, emit: emittedEvents(state.outbox.plan, state.workload.consumer, input.dedupKey) };
  };
}

/** Keeps the outcomes of the attempt in whose async context the handler ran, for the checks. */
function observe(state: RunState, outcomes: readonly RecordOutcome[]): void {
  const attempt = currentAttempt.getStore();
  if (attempt) state.outcomes.set(attempt, outcomes);
}
