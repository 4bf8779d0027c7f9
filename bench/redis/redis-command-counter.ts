/**
 * Counts the commands the Redis store sends, the analogue of bench/measure/request-counter.ts (DynamoDB) and
 * bench/measure/statement-counter.ts (Postgres): every command is one round trip to the server (the store
 * awaits each before the next of its record), so commands per record is what a record waits for on a
 * network. bench/redis/redis-network-model.ts tells it of every command and its answer.
 */
import {
  CLAIM_SCRIPT,
  COMPLETE_SCRIPT,
  QUARANTINE_SCRIPT,
  RELEASE_SCRIPT,
} from '../../lambdas/redis/redis-scripts.js';
import type { RequestTally } from '../measure/request-counter.js';

/** The store's scripts by their text: an EVAL is counted by what it does. */
const SCRIPT_NAMES: ReadonlyMap<string, string> = new Map([
  [CLAIM_SCRIPT, 'claim'],
  [COMPLETE_SCRIPT, 'complete'],
  [RELEASE_SCRIPT, 'release'],
  [QUARANTINE_SCRIPT, 'quarantine'],
]);

/** What an EVAL is counted as: the store script's name, or `EVAL` for any other script. */
export function scriptName(script: string): string {
  return SCRIPT_NAMES.get(script) ?? 'EVAL';
}

/**
 * Whether the answer says the script wrote nothing: a claim that found a live row (a duplicate, a payload
 * conflict, an event in flight), a completion or release whose lease was lost, an entry quarantined already.
 * The analogue of the requests DynamoDB refuses on a condition, so refused per record compares across stores.
 */
export function isRefusal(command: string, answer: unknown): boolean {
  switch (command) {
    // The claim script answers Lua's false (a nil reply: null) when it wrote the row, else the row it found.
    case 'claim':
      return answer !== null;
    case 'complete':
    case 'release':
      return answer === 'lease-lost';
    case 'quarantine':
      return answer === 'already-quarantined';
    default:
      return false;
  }
}

export class RedisCommandCounter {
  #commands = 0;
  #refused = 0;
  #byCommand: Record<string, number> = {};

  /** One command sent: `claim`, `complete`, `release`, `quarantine` (a store script), `EXISTS`... */
  sent(command: string): void {
    this.#commands += 1;
    this.#byCommand[command] = (this.#byCommand[command] ?? 0) + 1;
  }

  /** The server answered `command` with `answer`. */
  answered(command: string, answer: unknown): void {
    if (isRefusal(command, answer)) this.#refused += 1;
  }

  reset(): void {
    this.#commands = 0;
    this.#refused = 0;
    this.#byCommand = {};
  }

  /** In the DynamoDB tally's shape: requests are commands; Redis has no transactions or capacity units. */
  tally(): RequestTally {
    return {
      requests: this.#commands,
      refused: this.#refused,
      transactions: 0,
      wcu: 0,
      byCommand: { ...this.#byCommand },
    };
  }
}
