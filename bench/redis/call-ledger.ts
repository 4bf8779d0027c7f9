/**
 * The call both side-effect contenders make (`{ kind: 'call', run }`): it takes no time and reaches nothing,
 * it only writes down that it ran, so a record's time is its store's alone and the comparison is the store's.
 * A real call (an HTTP request, an email) adds its own time to a record on either store alike.
 *
 * The ledger is also the exactly-once check, as the account balances are for the transactional contenders:
 * after a sequence every distinct event has run once, no event twice, and the balances its runs add up to
 * are the sequence's expected ones.
 */
import type { SideEffectPlan } from '../../lambdas/core/effect.js';
import type { InboxEffectInput } from '../../lambdas/core/index.js';
import type { OrderPlaced } from '../../sample/order-consumer/order-placed.js';
import { checkExactlyOnce } from '../measure/throughput.js';
import type { Sequence } from '../scenarios.js';

export class CallLedger {
  readonly #runs = new Map<string, number>();
  readonly #balances = new Map<string, number>();

  /** The call ran for this event: the order debits its account, as the sample's effect does. */
  ran(dedupKey: string, order: OrderPlaced): void {
    this.#runs.set(dedupKey, (this.#runs.get(dedupKey) ?? 0) + 1);
    this.#balances.set(order.account_id, (this.#balances.get(order.account_id) ?? 0) - order.amount);
  }

  /** Throws unless each of the sequence's distinct events ran exactly once. */
  check(contender: string, sequence: Sequence): void {
    const twice = [...this.#runs].find(([, runs]) => runs !== 1);
    if (twice) {
      throw new Error(
        `${contender} ran the call for ${twice[0]} ${twice[1]} times on "${sequence.name}": every event must run once`,
      );
    }
    // A missing run leaves its account's balance short of what the sequence expects.
    checkExactlyOnce(contender, sequence, this.#balances);
  }
}

/** The effect of both contenders: the call, for every OrderPlaced. */
export function ledgerEffect(ledger: CallLedger) {
  return ({ event, dedupKey }: InboxEffectInput<OrderPlaced>): SideEffectPlan => ({
    kind: 'call',
    run: async () => ledger.ran(dedupKey, event),
  });
}
