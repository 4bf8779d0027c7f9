/**
 * A pass-through HTTP proxy in front of DynamoDB Local, one per execution environment: the function's
 * `AWS_ENDPOINT_URL_DYNAMODB` points here. It counts the environment's write requests so the emulator can
 * make the environment die at an exact point mid-batch: the crash write reaches DynamoDB and is applied,
 * but its answer never comes back, and nothing after it gets through.
 */
import {
  type Agent,
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';

/** Requests that change items (X-Amz-Target `DynamoDB_20120810.<Operation>`). */
const WRITE_OPERATIONS = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'TransactWriteItems',
  'BatchWriteItem',
  'ExecuteStatement',
  'BatchExecuteStatement',
  'ExecuteTransaction',
]);

export interface CrashTrigger {
  /** Writes answered normally before the crash write. */
  readonly afterWrites: number;
  /** Called once the crash write has been applied; the caller ends the environment. */
  readonly onCrash: () => void;
}

export class DynamoDbWriteGate {
  readonly endpoint: string;
  readonly #server: Server;
  readonly #sockets: Set<Socket>;
  #writes = 0;
  #trigger: CrashTrigger | undefined;
  #dead = false;

  private constructor(server: Server, sockets: Set<Socket>, endpoint: string) {
    this.#server = server;
    this.#sockets = sockets;
    this.endpoint = endpoint;
  }

  static async start(target: string, agent: Agent): Promise<DynamoDbWriteGate> {
    const upstream = new URL(target);
    let gate: DynamoDbWriteGate | undefined;
    const server = createServer((req, res) => gate?.forward(upstream, agent, req, res));
    const sockets = new Set<Socket>();
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const address = server.address();
    if (address === null || typeof address !== 'object') throw new Error('the write gate has no port');
    gate = new DynamoDbWriteGate(server, sockets, `http://127.0.0.1:${address.port}`);
    return gate;
  }

  /** Counts writes from zero for the next invocation; with a trigger, arms the crash. */
  arm(trigger: CrashTrigger | undefined): void {
    this.#writes = 0;
    this.#trigger = trigger;
  }

  get writes(): number {
    return this.#writes;
  }

  async close(): Promise<void> {
    this.#dead = true;
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  forward(upstream: URL, agent: Agent, req: IncomingMessage, res: ServerResponse): void {
    if (this.#dead) {
      req.socket.destroy();
      return;
    }
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    const isWrite = WRITE_OPERATIONS.has(operation);
    const crashes = isWrite && this.#trigger !== undefined && this.#writes >= this.#trigger.afterWrites;
    if (isWrite) this.#writes++;
    const outgoing = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        if (crashes || this.#dead) {
          // Applied by DynamoDB; the environment dies before it hears so.
          answer.resume();
          answer.on('end', () => this.#crash());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    outgoing.on('error', () => res.destroy());
    req.pipe(outgoing);
  }

  #crash(): void {
    if (this.#dead) return;
    this.#dead = true;
    for (const socket of this.#sockets) socket.destroy();
    this.#trigger?.onCrash();
  }
}
