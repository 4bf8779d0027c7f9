/**
 * A loopback TCP front for PGlite's socket server that admits at most `maxSessions` connections at once
 * and lets a new connection in only once the previous one is fully released.
 *
 * Why not PGLiteSocketServer's own maxConnections: pg's `pool.end()` resolves before its sockets close, so
 * a pool that ends and a new one that connects at once (a test's next pool) was refused in 50 of 100 tries
 * here, with a bare "Connection terminated unexpectedly". Here the new connection waits for the old one to
 * close and leave PGlite's socket server (whose own limit is then never reached); a connection that finds
 * `maxSessions` sessions still open after ADMIT_GRACE_MS is refused with a Postgres error (53300,
 * too_many_connections) that says why, instead of a dropped socket.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface SessionGate {
  readonly port: number;
  /** Stops accepting and cuts every connection through it. */
  close(): Promise<void>;
}

export interface SessionGateOptions {
  readonly upstreamPort: number;
  readonly maxSessions: number;
  /** The upstream server's connection count (PGLiteSocketServer.getStats().activeConnections). */
  readonly upstreamSessions: () => number;
  /**
   * How long a connection waits for a session to end before it is refused: longer where several clients
   * take turns on the one session (the demo's function environments, each closing its idle connection).
   * @default ADMIT_GRACE_MS
   */
  readonly admitGraceMs?: number;
}

/**
 * How long a connection waits for a session to end before it is refused. pg's `pool.end()` resolves before
 * its sockets are closed, so a test's next pool can connect while the last one is still open: it waits.
 */
const ADMIT_GRACE_MS = 1000;

/** How long a closed session may take to leave the upstream server before the gate stops waiting for it. */
const RELEASE_LIMIT_MS = 5000;

export async function startSessionGate(options: SessionGateOptions): Promise<SessionGate> {
  const { upstreamPort, maxSessions, upstreamSessions } = options;
  let live = 0;
  let releasing = 0;
  // Resolved, and replaced, whenever a session ends or finishes its release: what a waiting client awaits.
  let signal: () => void = () => undefined;
  let changed = new Promise<void>((resolve) => {
    signal = resolve;
  });
  const notify = (): void => {
    const wake = signal;
    changed = new Promise<void>((resolve) => {
      signal = resolve;
    });
    wake();
  };
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // A reset by either side ends the session like a close; nothing to report.
    socket.on('error', () => undefined);
  };

  const release = async (): Promise<void> => {
    const deadline = Date.now() + RELEASE_LIMIT_MS;
    while (upstreamSessions() > live && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    releasing -= 1;
    notify();
  };

  const admit = async (client: Socket): Promise<void> => {
    track(client);
    const refuseAt = Date.now() + (options.admitGraceMs ?? ADMIT_GRACE_MS);
    while (live + releasing >= maxSessions) {
      const wait = refuseAt - Date.now();
      if (live >= maxSessions && wait <= 0) {
        refuse(client, maxSessions);
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        changed,
        new Promise((resolve) => {
          timer = setTimeout(resolve, Math.max(wait, 0));
        }),
      ]);
      clearTimeout(timer);
      if (client.destroyed) return;
    }
    live += 1;
    const upstream = connect(upstreamPort, '127.0.0.1');
    track(upstream);
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      live -= 1;
      releasing += 1;
      client.destroy();
      upstream.destroy();
      notify();
      void release();
    };
    client.once('close', end);
    upstream.once('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  };

  // Paused until admitted: the client's startup message waits in the socket, not in a buffer here.
  const server = createServer({ pauseOnConnect: true }, (client) => void admit(client));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('the session gate has no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A FATAL ErrorResponse, which the client reads in place of the authentication reply it waits for. */
function refuse(client: Socket, maxSessions: number): void {
  const message =
    `PGlite is one Postgres session: ${maxSessions} connection(s) already open through this server; ` +
    'use a pool of max 1 and end it before another connects';
  const fields = Buffer.concat([
    ...[
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', '53300'],
      ['M', message],
    ].map(([code, value]) => Buffer.from(`${code}${value}\0`, 'utf8')),
    Buffer.from([0]),
  ]);
  const header = Buffer.alloc(5);
  header.write('E', 0, 'ascii');
  header.writeInt32BE(4 + fields.length, 1);
  client.end(Buffer.concat([header, fields]));
}
