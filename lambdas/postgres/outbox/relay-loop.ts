/**
 * The Postgres relay's invocation (docs/postgres.md#the-relay): rounds (relay-round.ts) one after another
 * while events wait, and between them a wait for an emitting commit's NOTIFY (append-listener.ts) or the
 * poll interval, whichever comes first, until the invocation's time is nearly out. Invocations come on a
 * schedule shorter than their timeout, so one is (nearly) always running and two may overlap: their rounds
 * claim different keys and never wait on each other (relay-queries.ts).
 *
 * Nothing is held across invocations that could hurt while the environment is frozen: every round's
 * transaction ends before the invocation returns, and the listening connection UNLISTENs (a frozen
 * listener would keep Postgres from trimming its notification queue).
 */
import type { PoolClient } from 'pg';
import type { Publisher } from '../../outbox-relay/publisher.js';
import { withPooledClient } from '../connection.js';
import { OutboxAppendListener } from './append-listener.js';
import type { OutboxRelayQueries } from './relay-queries.js';
import { type RoundReport, relayRound } from './relay-round.js';
import type { PostgresRelaySettings } from './relay-settings.js';

export interface RelayLoopDeps {
  /** A connection of the pool (released after each round; the listener keeps one for the invocation). */
  readonly connect: () => Promise<PoolClient>;
  readonly schema: string;
  readonly queries: OutboxRelayQueries;
  readonly publisher: Publisher;
  readonly settings: PostgresRelaySettings;
  readonly nowMs: () => number;
  /** The invocation's time left (Lambda's getRemainingTimeInMillis). */
  readonly remainingMs: () => number;
  readonly log: {
    readonly warn: (message: string, details: Record<string, unknown>) => void;
    readonly error: (message: string, details: Record<string, unknown>) => void;
  };
  /** @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** What an invocation did, for its metrics and its log line. */
export interface RelayRunSummary {
  rounds: number;
  /** Waits a commit's notification ended, and waits the poll interval ended. */
  notified: number;
  polled: number;
  published: number;
  quarantined: number;
  /** Sends that failed for now (their keys' events stay pending; their topics wait for the next round). */
  publishFailures: number;
  /** Rounds the database failed (a connection, a statement, the COMMIT): their events stay pending. */
  storeFailures: number;
  publishLagMs: number | undefined;
  /** The oldest pending event's age when the invocation ended (undefined: none pending, or unknown). */
  oldestPendingAgeMs: number | undefined;
  /** Rows of outbox_keys deleted for keys with nothing pending. */
  idleKeysDeleted: number;
}

/**
 * No round is started with less time left: one key's send (KEY_SEND_RESERVE_MS) plus the round's claim,
 * reads and COMMIT, and the end-of-invocation lag query.
 */
export const ROUND_START_RESERVE_MS = 20_000;
/** Rows of outbox_keys an invocation deletes at most, once, at its end. */
const IDLE_KEYS_PER_INVOCATION = 1_000;

export async function runRelay(deps: RelayLoopDeps): Promise<RelayRunSummary> {
  const summary: RelayRunSummary = {
    rounds: 0,
    notified: 0,
    polled: 0,
    published: 0,
    quarantined: 0,
    publishFailures: 0,
    storeFailures: 0,
    publishLagMs: undefined,
    oldestPendingAgeMs: undefined,
    idleKeysDeleted: 0,
  };
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const listening = new Listening(deps);
  try {
    // The first round always runs, so a function with a short timeout still moves events.
    do {
      await listening.start();
      const round = await oneRound(deps, summary);
      if (round?.more === true) continue;
      const waitMs = Math.min(deps.settings.pollIntervalMs, deps.remainingMs() - ROUND_START_RESERVE_MS);
      if (waitMs <= 0) break;
      const woken = await listening.wait(waitMs, sleep);
      if (woken === 'appended') summary.notified += 1;
      else summary.polled += 1;
    } while (deps.remainingMs() > ROUND_START_RESERVE_MS);
  } finally {
    await listening.stop();
  }
  await measureAndTidy(deps, summary);
  return summary;
}

async function oneRound(deps: RelayLoopDeps, summary: RelayRunSummary): Promise<RoundReport | undefined> {
  summary.rounds += 1;
  let round: RoundReport;
  try {
    round = await withPooledClient(await deps.connect(), (client) =>
      relayRound(client, {
        queries: deps.queries,
        publisher: deps.publisher,
        keysPerRound: deps.settings.keysPerRound,
        nowMs: deps.nowMs,
        remainingMs: deps.remainingMs,
      }),
    );
  } catch (error) {
    summary.storeFailures += 1;
    deps.log.error('relay round failed: its events stay pending', { error: describe(error) });
    return undefined;
  }
  summary.published += round.published;
  summary.quarantined += round.quarantined;
  if (round.publishLagMs !== undefined) {
    summary.publishLagMs = Math.max(summary.publishLagMs ?? 0, round.publishLagMs);
  }
  for (const failure of round.publishFailures) {
    summary.publishFailures += 1;
    deps.log.warn('a send to Kafka failed: its key’s events stay pending', { error: describe(failure) });
  }
  return round;
}

/** The lag as the invocation leaves it, and outbox_keys rows with nothing pending deleted. */
async function measureAndTidy(deps: RelayLoopDeps, summary: RelayRunSummary): Promise<void> {
  try {
    await withPooledClient(await deps.connect(), async (client) => {
      summary.oldestPendingAgeMs = await deps.queries.oldestPendingAgeMs(client);
      summary.idleKeysDeleted = await deps.queries.deleteIdleKeys(client, {
        limit: IDLE_KEYS_PER_INVOCATION,
      });
    });
  } catch (error) {
    summary.storeFailures += 1;
    deps.log.error('the relay’s lag query or its tidying of idle keys failed', { error: describe(error) });
  }
}

/**
 * The invocation's listening connection, with OUTBOX_WAKE=notify: opened before the first round (so a
 * commit during it is remembered), opened again after its connection failed, given back at the end.
 * Without one (poll, or LISTEN failing), the loop sleeps the poll interval.
 */
class Listening {
  readonly #deps: RelayLoopDeps;
  #session: { readonly client: PoolClient; readonly listener: OutboxAppendListener } | undefined;

  constructor(deps: RelayLoopDeps) {
    this.#deps = deps;
  }

  async start(): Promise<void> {
    if (this.#deps.settings.wake !== 'notify' || this.#session !== undefined) return;
    let client: PoolClient | undefined;
    try {
      client = await this.#deps.connect();
      this.#session = { client, listener: await OutboxAppendListener.listen(client, this.#deps.schema) };
    } catch (error) {
      client?.release(error instanceof Error ? error : true);
      this.#deps.log.warn('LISTEN failed: the relay polls until it works', { error: describe(error) });
    }
  }

  async wait(ms: number, sleep: (ms: number) => Promise<void>): Promise<'appended' | 'timeout'> {
    const session = this.#session;
    if (session === undefined) {
      await sleep(ms);
      return 'timeout';
    }
    try {
      return await session.listener.waitForAppend(ms);
    } catch (error) {
      // The connection ended: the next round runs at once (a notification may have been lost with it).
      this.#session = undefined;
      session.client.release(error instanceof Error ? error : true);
      return 'timeout';
    }
  }

  async stop(): Promise<void> {
    const session = this.#session;
    this.#session = undefined;
    if (session === undefined) return;
    try {
      await session.listener.stop();
      session.client.release();
    } catch (error) {
      session.client.release(error instanceof Error ? error : true);
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
