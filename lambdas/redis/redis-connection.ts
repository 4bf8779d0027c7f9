/**
 * The store's client with a login that is fresh at every connection (docs/redis.md#authentication).
 * ioredis 6 takes a password as a string only, read when it (re)connects: left to reconnect by itself it
 * would present a spent IAM token, or a rotated secret's old password. So each client is made for one
 * login, never reconnects on its own (the factory's promise), and is replaced by a client with a new login
 * before the next command once it has ended (a lost connection, ElastiCache closing an IAM connection
 * after 12 hours), once its login is refused, or once it is older than `maxClientAgeMs` (a cluster client
 * opens node connections by itself, with the login it was made with). A command on a client that ends under it
 * fails, and its record is retried; the next command connects anew.
 */
import { isLoginRefusal } from './redis-failure.js';
import type { RedisScripting } from './redis-inbox-store.js';
import type { RedisLogin } from './redis-login.js';

/** An ioredis `Redis` or `Cluster`, not yet connected, that never reconnects by itself. */
export interface ManagedClient extends RedisScripting {
  /** ioredis's: `wait` until the first command connects it, `end` (or `close`) once it is done. */
  readonly status: string;
  quit(): Promise<unknown>;
  disconnect(): void;
}

export interface RedisConnectionOptions {
  /** A client logging in with `login`, connecting at its first command. */
  readonly clientFor: (login: RedisLogin) => ManagedClient;
  /** The login for a new client (redis-login.ts). */
  readonly login: () => Promise<RedisLogin>;
  /**
   * A client made longer ago is replaced before its next command, its commands under way finishing first.
   * @default - only an ended client is replaced
   */
  readonly maxClientAgeMs?: number;
  /** @default the system clock */
  readonly nowMs?: () => number;
}

/** Statuses after which an ioredis client with no retry strategy sends nothing more. */
const ENDED = new Set(['close', 'end']);

export class RedisConnection implements RedisScripting {
  readonly #options: RedisConnectionOptions;
  readonly #nowMs: () => number;
  #current: { readonly client: ManagedClient; readonly madeAtMs: number } | undefined;
  #making: Promise<ManagedClient> | undefined;

  constructor(options: RedisConnectionOptions) {
    this.#options = options;
    this.#nowMs = options.nowMs ?? Date.now;
  }

  eval(script: string, numberOfKeys: number, ...args: (string | number)[]): Promise<unknown> {
    return this.#send((client) => client.eval(script, numberOfKeys, ...args));
  }

  exists(...keys: string[]): Promise<number> {
    return this.#send((client) => client.exists(...keys));
  }

  /** Ends the client (at a consumer's shutdown, or a test's end); the next command would make another. */
  async end(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    if (current) await retire(current.client);
  }

  async #send<T>(command: (client: ManagedClient) => Promise<T>): Promise<T> {
    const client = await this.#client();
    try {
      return await command(client);
    } catch (error) {
      // A client that failed before it was ready (its connection refused, or its login), or whose login a
      // node refused (a cluster's, opened later), is done: the next command makes another with a new login,
      // rather than finding this one still closing.
      const done = client.status !== 'ready' || isLoginRefusal(error);
      if (done && this.#current?.client === client) {
        this.#current = undefined;
        client.disconnect();
      }
      throw error;
    }
  }

  #client(): Promise<ManagedClient> {
    const current = this.#current;
    if (current !== undefined && !this.#spent(current)) return Promise.resolve(current.client);
    // One new client for every command waiting: the partitions of a batch share it.
    this.#making ??= this.#replace(current?.client).finally(() => {
      this.#making = undefined;
    });
    return this.#making;
  }

  #spent(current: { readonly client: ManagedClient; readonly madeAtMs: number }): boolean {
    const { maxClientAgeMs } = this.#options;
    return (
      ENDED.has(current.client.status) ||
      (maxClientAgeMs !== undefined && this.#nowMs() - current.madeAtMs > maxClientAgeMs)
    );
  }

  async #replace(previous: ManagedClient | undefined): Promise<ManagedClient> {
    // A login that cannot be made (a secret unreadable) fails this command; the next one tries again.
    const login = await this.#options.login();
    const client = this.#options.clientFor(login);
    this.#current = { client, madeAtMs: this.#nowMs() };
    if (previous) void retire(previous);
    return client;
  }
}

/** QUIT after the replies still due; a client never connected, or ended, is closed at once. */
async function retire(client: ManagedClient): Promise<void> {
  if (client.status === 'wait' || ENDED.has(client.status)) {
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
