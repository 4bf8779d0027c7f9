/**
 * The notification service of `npm start -- --store redis`: an HTTP server on loopback, in the demo's own
 * process, that takes the sample notification consumer's POSTs (sample/notification-consumer/) and counts
 * them per Idempotency-Key, so the verification sees how often each event's call was made.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface NotificationReceiver {
  /** `http://127.0.0.1:<port>/notifications` */
  readonly url: string;
  /** Calls taken so far, per Idempotency-Key. */
  readonly callsByKey: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

export async function startNotificationReceiver(): Promise<NotificationReceiver> {
  const callsByKey = new Map<string, number>();
  const server = createServer((request, response) => {
    const key = request.headers['idempotency-key'];
    request.resume();
    request.once('end', () => {
      // A call without a key could not be told from its repeat: refused, as a service that requires one does.
      if (request.method !== 'POST' || typeof key !== 'string' || key === '') {
        response.writeHead(400).end();
        return;
      }
      callsByKey.set(key, (callsByKey.get(key) ?? 0) + 1);
      response.writeHead(202).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/notifications`,
    callsByKey,
    async close() {
      // The environments' keep-alive connections would hold close() open.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
