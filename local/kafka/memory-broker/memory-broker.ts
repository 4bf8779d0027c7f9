/**
 * A Kafka-protocol front for the in-memory log: a TCP server on a free loopback port that speaks enough of
 * the protocol for a kafkajs producer (ApiVersions, Metadata, Produce; api-table.ts) and appends what it
 * receives to an InMemoryLog. Where kcat (librdkafka's mock cluster, ../broker.ts) is missing, code that
 * produces over the wire, such as the outbox relay's bundle in the local Lambda runtime, produces here.
 *
 * One broker, node 0, leads every partition. It is not a Kafka: no Fetch, no consumer groups, no
 * idempotence, transactions or compression, no SASL or TLS. Readers read the InMemoryLog itself.
 *
 * It also gives what the mock cluster cannot, even where kcat is installed: librdkafka 2.0.2's mock
 * advertises Metadata v0-2 only, which carry no allow_auto_topic_creation, so it creates every topic a
 * client asks about (4 partitions) and a kafkajs producer never sees UNKNOWN_TOPIC_OR_PARTITION; and it
 * checks no max.message.bytes (a 20 MB record is appended), so no MESSAGE_TOO_LARGE either.
 */
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { InMemoryLog } from '../../esm/in-memory-log.js';
import { LocalKafkaError } from '../errors.js';
import { findHandler } from './api-table.js';
import type { BrokerContext } from './request-context.js';
import { WireFormatError, WireReader } from './wire-format.js';

/** Kafka's default message.max.bytes: 1 MiB of records plus the 12-byte log overhead of a batch. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;

/** Kafka's default socket.request.max.bytes: a larger request frame closes the connection. */
const MAX_REQUEST_BYTES = 104_857_600;

const HOST = '127.0.0.1';

export interface MemoryBrokerOptions {
  /**
   * auto.create.topics.enable: a Metadata request for a topic the log lacks creates it (when the request
   * allows, as kafkajs' `allowAutoTopicCreation`, default true, does). Off, such a topic is
   * UNKNOWN_TOPIC_OR_PARTITION, as on a cluster that creates topics ahead (MSK's default).
   * @default false
   */
  readonly autoCreateTopics?: boolean;
  /** num.partitions: partitions of an auto-created topic. @default 1 */
  readonly autoCreatedPartitions?: number;
  /** message.max.bytes: the largest record batch a topic takes, with its 12-byte log overhead. @default 1048588 */
  readonly maxMessageBytes?: number;
  /** max.message.bytes per topic, overriding `maxMessageBytes`. */
  readonly topicMaxMessageBytes?: Readonly<Record<string, number>>;
  /**
   * Told why a connection was closed for a request this front cannot parse or does not speak.
   * @default ignored
   */
  readonly onProtocolError?: (error: Error) => void;
}

export interface MemoryBroker {
  /** `127.0.0.1:<port>`, for `KAFKA_BOOTSTRAP_SERVERS` or kafkajs' `brokers`. */
  readonly bootstrapServers: string;
  /** Client connections open now. */
  connectionCount(): number;
  /**
   * Ends every client connection and keeps listening: clients see a broker connection lost and reconnect.
   * Resolves once the connections are closed.
   */
  dropConnections(): Promise<void>;
  /** Ends every connection and stops listening. The log is untouched. */
  close(): Promise<void>;
}

/** Starts the front on a free loopback port; resolves once it listens. */
export async function startMemoryBroker(
  log: InMemoryLog,
  options: MemoryBrokerOptions = {},
): Promise<MemoryBroker> {
  const settings = validate(options);
  const sockets = new Set<Socket>();
  const server = createServer({ noDelay: true });
  const port = await listen(server);
  const context: BrokerContext = {
    log,
    nodeId: 0,
    host: HOST,
    port,
    clusterId: 'msk-inbox-memory',
    autoCreateTopics: settings.autoCreateTopics,
    autoCreatedPartitions: settings.autoCreatedPartitions,
    maxMessageBytes: (topic) => settings.topicMaxMessageBytes[topic] ?? settings.maxMessageBytes,
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    serveConnection(socket, context, options.onProtocolError);
  });
  /** Resolves once every socket has closed (and left `sockets`). */
  const dropConnections = async () => {
    const closed = [...sockets].map((socket) => once(socket, 'close'));
    for (const socket of sockets) socket.destroy();
    await Promise.all(closed);
  };
  let closing: Promise<void> | undefined;
  return {
    bootstrapServers: `${HOST}:${port}`,
    connectionCount: () => sockets.size,
    dropConnections,
    close: () => {
      closing ??= Promise.all([
        new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
        dropConnections(),
      ]).then(() => undefined);
      return closing;
    },
  };
}

function validate(options: MemoryBrokerOptions) {
  const settings = {
    autoCreateTopics: options.autoCreateTopics ?? false,
    autoCreatedPartitions: options.autoCreatedPartitions ?? 1,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    topicMaxMessageBytes: { ...options.topicMaxMessageBytes } as Partial<Record<string, number>>,
  };
  const counts: [string, number | undefined][] = [
    ['autoCreatedPartitions', settings.autoCreatedPartitions],
    ['maxMessageBytes', settings.maxMessageBytes],
    ...Object.entries(settings.topicMaxMessageBytes).map(([topic, bytes]): [string, number | undefined] => [
      `topicMaxMessageBytes.${topic}`,
      bytes,
    ]),
  ];
  for (const [name, value] of counts) {
    if (!Number.isInteger(value) || (value ?? 0) < 1) {
      throw new LocalKafkaError(`${name} must be a positive integer, got ${value}`);
    }
  }
  return settings;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new LocalKafkaError(`the in-memory broker listens on no TCP port: ${address}`));
      } else {
        resolve(address.port);
      }
    });
  });
}

/**
 * Reads size-prefixed request frames and answers them one after another, in order, as a broker answers a
 * connection's requests (a client may send the next before the last is answered).
 * https://kafka.apache.org/protocol#protocol_common
 */
function serveConnection(
  socket: Socket,
  context: BrokerContext,
  onProtocolError: ((error: Error) => void) | undefined,
): void {
  const frames = new FrameReader();
  let answered = Promise.resolve();
  const fail = (error: unknown) => {
    if (socket.destroyed) return;
    socket.destroy();
    onProtocolError?.(error instanceof Error ? error : new Error(String(error)));
  };
  // A client that goes away mid-request resets the connection: nothing to do but forget it.
  socket.on('error', () => {});
  socket.on('data', (chunk: Buffer) => {
    let received: Buffer[];
    try {
      received = frames.push(chunk);
    } catch (error) {
      fail(error);
      return;
    }
    for (const frame of received) {
      answered = answered.then(() => answer(frame, context, socket)).catch(fail);
    }
  });
}

/**
 * Request header v1: api_key INT16, api_version INT16, correlation_id INT32, client_id NULLABLE_STRING.
 * Response header v0: correlation_id INT32 (no API here has a flexible version, whose headers differ).
 */
async function answer(frame: Buffer, context: BrokerContext, socket: Socket): Promise<void> {
  if (socket.destroyed) return;
  const request = new WireReader(frame);
  const apiKey = request.int16();
  const version = request.int16();
  const correlationId = request.int32();
  request.nullableString(); // client_id
  const handle = findHandler(apiKey, version);
  if (handle === undefined) throw new WireFormatError(`API key ${apiKey} version ${version} not spoken here`);
  const body = await handle(version, request, context);
  if (body === undefined || socket.destroyed) return;
  const header = Buffer.alloc(8);
  header.writeInt32BE(4 + body.length, 0);
  header.writeInt32BE(correlationId, 4);
  socket.write(Buffer.concat([header, body]));
}

/** Cuts a byte stream into request frames (INT32 size, then that many bytes), copying each frame once. */
class FrameReader {
  #chunks: Buffer[] = [];
  #buffered = 0;

  push(chunk: Buffer): Buffer[] {
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    const frames: Buffer[] = [];
    while (this.#buffered >= 4) {
      const head = this.#chunks[0] as Buffer;
      const size = (head.length >= 4 ? head : Buffer.concat(this.#chunks)).readInt32BE(0);
      // api_key, api_version and correlation_id at least.
      if (size < 8 || size > MAX_REQUEST_BYTES) throw new WireFormatError(`request frame of ${size} bytes`);
      if (this.#buffered < 4 + size) break;
      const joined = this.#chunks.length === 1 ? head : Buffer.concat(this.#chunks);
      frames.push(joined.subarray(4, 4 + size));
      const rest = joined.subarray(4 + size);
      this.#chunks = rest.length > 0 ? [rest] : [];
      this.#buffered = rest.length;
    }
    return frames;
  }
}
