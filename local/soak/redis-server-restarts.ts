/**
 * The soak's server restarts on Redis: a schedule's attempt begins one as a command of its goes out
 * (redis-fault-injection.ts) and does not wait for it, so that command, and whatever every other schedule
 * has in flight, meets the crash as it comes. The server keeps every acknowledged write
 * (local/redis/redis-server.ts#startDurableRedisServer), so the invariants must hold through it; a restart
 * that fails to bring the server back is kept here for the soak's report, not lost in a schedule.
 */
import type { DurableRedis } from '../redis/redis-server.js';

export class ServerRestarts {
  readonly #server: Pick<DurableRedis, 'restart' | 'restarts'>;
  readonly #failures: string[] = [];
  #underWay: Promise<void> | undefined;

  constructor(server: Pick<DurableRedis, 'restart' | 'restarts'>) {
    this.#server = server;
  }

  /** Crashes the server and starts it again, joining a restart already under way; returns at once. */
  begin(): void {
    const restart = this.#server.restart();
    if (restart === this.#underWay) return;
    this.#underWay = restart;
    restart.catch((error: unknown) => {
      this.#failures.push(error instanceof Error ? error.message : String(error));
    });
  }

  /** Restarts the server went through (joined calls are one). */
  get performed(): number {
    return this.#server.restarts;
  }

  /** Why a restart did not bring the server back, one line each. */
  get failures(): readonly string[] {
    return this.#failures;
  }
}

/** The soak's line about them, after its figures. */
export function formatServerRestarts(restarts: ServerRestarts): string {
  const failed = restarts.failures;
  return [
    `server restarts: ${restarts.performed.toLocaleString('en-US')} (redis-server killed and started again on its append-only file, ${
      failed.length === 0 ? 'each came back' : `${failed.length} did not come back`
    })`,
    ...failed.map((failure) => `  restart failed: ${failure}`),
  ].join('\n');
}
