/**
 * What no kafkajs producer sends but other clients may: ApiVersions of a version the front does not speak,
 * and requests for APIs it lacks. Written byte by byte over a plain socket.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryLog } from '../../../local/esm/in-memory-log.js';
import { type MemoryBroker, startMemoryBroker } from '../../../local/kafka/memory-broker/memory-broker.js';

const API_VERSIONS = 18;
const FETCH = 1;

const brokers: MemoryBroker[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(brokers.splice(0).map((broker) => broker.close()));
});

async function open(onProtocolError?: (error: Error) => void): Promise<Socket> {
  const broker = await startMemoryBroker(new InMemoryLog({ topics: {} }), { onProtocolError });
  brokers.push(broker);
  const [host, port] = broker.bootstrapServers.split(':');
  const socket = connect({ host, port: Number(port) });
  sockets.push(socket);
  await once(socket, 'connect');
  return socket;
}

/** Request header v1 (api_key, api_version, correlation_id, client_id) and an empty body. */
function request(apiKey: number, version: number, correlationId: number): Buffer {
  const clientId = Buffer.from('raw-test');
  const frame = Buffer.alloc(4 + 10 + clientId.length);
  frame.writeInt32BE(frame.length - 4, 0);
  frame.writeInt16BE(apiKey, 4);
  frame.writeInt16BE(version, 6);
  frame.writeInt32BE(correlationId, 8);
  frame.writeInt16BE(clientId.length, 12);
  clientId.copy(frame, 14);
  return frame;
}

/** The first response frame: its size, correlation id, then the ApiVersions body (error_code, [key min max]). */
async function readApiVersions(socket: Socket) {
  const received = await readFrame(socket);
  const count = received.readInt32BE(10);
  return {
    size: received.readInt32BE(0),
    correlationId: received.readInt32BE(4),
    errorCode: received.readInt16BE(8),
    apis: Array.from({ length: count }, (_, index) => {
      const at = 14 + index * 6;
      return [received.readInt16BE(at), received.readInt16BE(at + 2), received.readInt16BE(at + 4)];
    }),
  };
}

function readFrame(socket: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 4 && received.length >= 4 + received.readInt32BE(0)) {
        socket.off('close', onClose);
        socket.off('data', onData);
        resolve(received);
      }
    };
    const onClose = () => reject(new Error('the broker closed the connection before answering'));
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}

describe('the in-memory broker on the wire', () => {
  it('lists only what it implements: Produce 3-7, Metadata 4-6, ApiVersions 0-2', async () => {
    const socket = await open();
    socket.write(request(API_VERSIONS, 0, 41));

    expect(await readApiVersions(socket)).toEqual({
      // correlation_id, error_code, the array's count and three entries of 3 INT16s: no throttle_time_ms in v0
      size: 4 + 2 + 4 + 3 * 6,
      correlationId: 41,
      errorCode: 0,
      apis: [
        [0, 3, 7],
        [3, 4, 6],
        [18, 0, 2],
      ],
    });
  });

  it('adds throttle_time_ms from ApiVersions v1 on', async () => {
    const socket = await open();
    socket.write(request(API_VERSIONS, 2, 42));

    expect(await readApiVersions(socket)).toMatchObject({ size: 4 + 2 + 4 + 3 * 6 + 4, errorCode: 0 });
  });

  it('answers an ApiVersions version it does not speak with UNSUPPORTED_VERSION and the list, in the v0 layout', async () => {
    const socket = await open();
    socket.write(request(API_VERSIONS, 3, 7));

    const answer = await readApiVersions(socket);

    expect(answer).toMatchObject({ size: 4 + 2 + 4 + 3 * 6, correlationId: 7, errorCode: 35 });
    expect(answer.apis).toHaveLength(3);
  });

  it('closes the connection on a request for an API it lacks, and says why', async () => {
    const errors: Error[] = [];
    const socket = await open((error) => errors.push(error));
    socket.write(request(FETCH, 11, 1));

    await once(socket, 'close');

    expect(errors.map((error) => error.message)).toEqual(['API key 1 version 11 not spoken here']);
  });
});
