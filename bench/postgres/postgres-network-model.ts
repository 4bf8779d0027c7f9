/**
 * The network the bench puts between a Postgres contender and the local server, the analogue of
 * bench/network-model.ts: every statement the `pg` driver is given (BEGIN, SAVEPOINT, the inbox INSERT,
 * each statement of the team's SQL, COMMIT, ROLLBACK) is one round trip, and its answer (an error too) is
 * held until `rttMs` has passed since it was sent. The hold is a timer, so connections in flight overlap as
 * on a network; statements of one connection never do, as the store awaits each before the next.
 *
 * One figure for every statement: Lambda to RDS Proxy to the Aurora writer and back (docs/benchmarks.md#on-postgres
 * cites the measurements it rests on). The local server's own time is hidden under the hold, as DynamoDB
 * Local's is, unless it is longer.
 */
import type { PoolClient } from 'pg';
import type { ConnectionSource } from '../../lambdas/postgres/connection.js';
import { holdUntil } from '../measure/hold-until.js';
import type { StatementCounter } from '../measure/statement-counter.js';

/** What the page and the progress output say the model is; rttMs is the swept base. */
export function describePostgresNetworkModel(): string {
  return 'round trip = rttMs for every statement (BEGIN, SAVEPOINT, INSERT, each effect statement, COMMIT, ROLLBACK)';
}

export interface StatementModel {
  /** Each statement's round trip in ms; 0 leaves the answers as the server gives them. */
  readonly rttMs: number;
  /** Told of every statement sent and every one that failed, at any rttMs. */
  readonly counter: StatementCounter;
}

/** Clients already wrapped: a pool hands the same client out again after its release. */
const wrapped = new WeakSet<PoolClient>();

/** The same connections, each client's `query` counted and, above rttMs 0, held. */
export function modelledConnections(source: ConnectionSource, model: StatementModel): ConnectionSource {
  return {
    async connect() {
      const client = await source.connect();
      if (!wrapped.has(client)) {
        wrapped.add(client);
        client.query = modelledQuery(client, model) as PoolClient['query'];
      }
      return client;
    },
    end: () => source.end(),
  };
}

/**
 * `query` with its promise's settlement held until the round trip has passed. The store only uses the
 * promise forms (text and values, or a config object); a callback or submittable form is counted, not held.
 */
export function modelledQuery(
  client: Pick<PoolClient, 'query'>,
  { rttMs, counter }: StatementModel,
): (...args: unknown[]) => unknown {
  const original = client.query.bind(client) as (...args: unknown[]) => unknown;
  return (...args: unknown[]) => {
    const [first] = args;
    counter.sent(typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text);
    const sentMs = performance.now();
    const result = original(...args);
    if (!isPromise(result)) return result;
    const hold = () => holdUntil(sentMs + rttMs);
    return result.then(
      async (answer) => {
        await hold();
        return answer;
      },
      async (error: unknown) => {
        counter.failed();
        await hold();
        throw error;
      },
    );
  };
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
