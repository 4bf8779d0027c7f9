/** What a request handler of the in-memory broker sees: the log behind it and the broker's own settings. */
import type { InMemoryLog } from '../../esm/in-memory-log.js';
import type { WireReader } from './wire-format.js';

export interface BrokerContext {
  readonly log: InMemoryLog;
  /** The single broker's id: it leads every partition and is the controller. */
  readonly nodeId: number;
  /** Where clients reach it, as Metadata advertises it: the address they bootstrapped from. */
  readonly host: string;
  readonly port: number;
  readonly clusterId: string;
  /** auto.create.topics.enable: Metadata creates a topic the log lacks, if the request allows it. */
  readonly autoCreateTopics: boolean;
  /** num.partitions: the partition count of an auto-created topic. */
  readonly autoCreatedPartitions: number;
  /** The topic's max.message.bytes (the broker's message.max.bytes unless the topic overrides it). */
  maxMessageBytes(topic: string): number;
}

/**
 * Answers one request: the response body (after the response header), or undefined when the request
 * expects none (Produce with acks 0). Throwing closes the connection, as a broker does on a request it
 * cannot parse.
 */
export type RequestHandler = (
  version: number,
  body: WireReader,
  context: BrokerContext,
) => Promise<Buffer | undefined>;
