/**
 * How a Postgres relay learns of new events without asking all the time (docs/postgres.md#outbox): every
 * transaction in which a record emitted sends NOTIFY on the schema's channel (outbox-writes.ts), which
 * Postgres delivers to listening sessions when, and only if, the transaction commits. The relay waits for
 * one, or for its poll interval, whichever comes first.
 *
 * The listener remembers a notification that came while nobody waited (the relay was publishing): the
 * next wait returns at once, so an event committed between a relay's claim and its wait is not left for
 * the poll. A notification can still be missed (the listening connection was down, or is multiplexed by a
 * proxy that does not keep a session's LISTEN): the poll bounds the delay that costs.
 */
import type { ClientBase, Notification } from 'pg';
import { outboxChannel } from './outbox-columns.js';

/**
 * A connection of the listener's own, held open: a `pg.Client` straight to the database. Through RDS
 * Proxy a LISTEN pins the connection, and through a transaction pooler it is lost.
 */
export type ListenClient = Pick<ClientBase, 'query' | 'on' | 'removeListener'>;

export type AppendWait = 'appended' | 'timeout';

export class OutboxAppendListener {
  readonly #client: ListenClient;
  readonly #channel: string;
  /** A notification came since the last wait returned. */
  #notified = false;
  /** Why the connection can no longer deliver notifications. */
  #ended: Error | undefined;
  #waiter: { readonly wake: () => void } | undefined;

  private constructor(client: ListenClient, channel: string) {
    this.#client = client;
    this.#channel = channel;
  }

  /** LISTENs on the schema's channel; notifications count from when this resolves. */
  static async listen(client: ListenClient, schema: string): Promise<OutboxAppendListener> {
    const listener = new OutboxAppendListener(client, outboxChannel(schema));
    client.on('notification', listener.#onNotification);
    client.on('error', listener.#onEnd);
    client.on('end', listener.#onEnd);
    try {
      await client.query(`LISTEN ${listener.#channel}`);
    } catch (error) {
      listener.#detach();
      throw error;
    }
    return listener;
  }

  /**
   * Resolves `appended` on a notification (at once if one came since the last wait returned), else
   * `timeout` after `timeoutMs`: the relay then claims anyway (a poll). Rejects once the connection ended:
   * the relay opens another and listens again. One wait at a time.
   */
  waitForAppend(timeoutMs: number): Promise<AppendWait> {
    if (this.#waiter !== undefined) return Promise.reject(new Error('one waitForAppend at a time'));
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    if (this.#notified) {
      this.#notified = false;
      return Promise.resolve('appended');
    }
    return new Promise<AppendWait>((resolve, reject) => {
      const timer = setTimeout(() => finish(), timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.#waiter = undefined;
        if (this.#ended !== undefined) return reject(this.#ended);
        const answer: AppendWait = this.#notified ? 'appended' : 'timeout';
        this.#notified = false;
        resolve(answer);
      };
      this.#waiter = { wake: finish };
    });
  }

  /** UNLISTENs and stops listening to the connection (which stays the caller's to end). */
  async stop(): Promise<void> {
    try {
      // Still listening for the connection's 'error' while UNLISTEN runs: one emitted with no listener on
      // a client would end the process.
      if (this.#ended === undefined) await this.#client.query(`UNLISTEN ${this.#channel}`);
    } finally {
      this.#detach();
      this.#ended ??= new Error('the outbox listener was stopped');
      this.#waiter?.wake();
    }
  }

  #detach(): void {
    this.#client.removeListener('notification', this.#onNotification);
    this.#client.removeListener('error', this.#onEnd);
    this.#client.removeListener('end', this.#onEnd);
  }

  readonly #onNotification = (message: Notification): void => {
    if (message.channel !== this.#channel) return;
    this.#notified = true;
    this.#waiter?.wake();
  };

  readonly #onEnd = (error?: unknown): void => {
    this.#ended ??= error instanceof Error ? error : new Error('the outbox listener’s connection ended');
    this.#waiter?.wake();
  };
}
