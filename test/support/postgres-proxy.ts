/**
 * A TCP proxy in front of a Postgres server that can lose the answer to a COMMIT: the server receives and
 * commits it, and the client's connection is cut before the answer reaches it. What a network failure or
 * a proxy's restart does at the worst moment, made deterministic for a test.
 */
import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';

export interface PostgresProxy {
  /** The server's URL with the proxy's port. */
  readonly url: string;
  /** The next COMMIT any connection sends is committed by the server and its answer lost. */
  loseNextCommitAnswer(): void;
  close(): Promise<void>;
}

/** The simple-protocol Query message the `pg` driver sends for `client.query('COMMIT')`: 'Q', length, text. */
function isCommitQuery(chunk: Buffer): boolean {
  const at = chunk.indexOf('COMMIT\u0000');
  return at >= 5 && chunk[at - 5] === 0x51;
}

export async function startPostgresProxy(serverUrl: string): Promise<PostgresProxy> {
  const target = new URL(serverUrl);
  let armed = false;
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    const server = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // A cut connection is the point of this proxy: its errors are the client's to see, not the test's.
      socket.on('error', () => undefined);
    }
    let losingAnswer = false;
    client.on('data', (chunk: Buffer) => {
      if (armed && isCommitQuery(chunk)) {
        armed = false;
        losingAnswer = true;
      }
      server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      if (losingAnswer) {
        // The server has answered, so it has committed: the client never hears it.
        client.destroy();
        server.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as AddressInfo).port);
  return {
    url: url.toString(),
    loseNextCommitAnswer: () => {
      armed = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
