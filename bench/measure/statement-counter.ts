/**
 * Counts the SQL statements a Postgres contender sends, the analogue of request-counter.ts: every statement
 * is a round trip to the server (the `pg` driver sends one at a time per connection and the store awaits each),
 * so statements per record is what a record waits for on a network, as requests per record are on DynamoDB.
 * bench/postgres/postgres-network-model.ts calls it for every query the driver is given.
 */
import type { RequestTally } from './request-counter.js';

export class StatementCounter {
  #statements = 0;
  #failed = 0;
  #transactions = 0;
  #byStatement: Record<string, number> = {};

  /** One statement sent; `sql` is its text (or undefined when the driver was given no text). */
  sent(sql: string | undefined): void {
    const kind = statementKind(sql ?? '');
    this.#statements += 1;
    if (kind === 'BEGIN') this.#transactions += 1;
    this.#byStatement[kind] = (this.#byStatement[kind] ?? 0) + 1;
  }

  /** The server answered it with an error (a SQLSTATE), or the connection failed under it. */
  failed(): void {
    this.#failed += 1;
  }

  reset(): void {
    this.#statements = 0;
    this.#failed = 0;
    this.#transactions = 0;
    this.#byStatement = {};
  }

  /** In the DynamoDB tally's shape: requests are statements, refused the failed ones; no capacity units. */
  tally(): RequestTally {
    return {
      requests: this.#statements,
      refused: this.#failed,
      transactions: this.#transactions,
      wcu: 0,
      byCommand: { ...this.#byStatement },
    };
  }
}

/**
 * The statement's verb, and for a write the table it writes (without its schema, which changes per sequence):
 * `BEGIN`, `SAVEPOINT`, `INSERT inbox`, `INSERT accounts`, `COMMIT`...
 */
export function statementKind(sql: string): string {
  const match = /^\s*(\w+)(?:\s+(?:INTO|FROM)?\s*(?:\w+\.)?(\w+))?/i.exec(sql);
  const verb = (match?.[1] ?? '').toUpperCase();
  if (verb === '') return '(empty)';
  const writes = verb === 'INSERT' || verb === 'UPDATE' || verb === 'DELETE';
  return writes && match?.[2] ? `${verb} ${match[2]}` : verb;
}
