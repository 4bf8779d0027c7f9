/**
 * The Publisher port on kafkajs: one producer per container (created and connected on the first publish,
 * then reused), sending with acks from every in-sync replica, one request in flight and no idempotence,
 * so a key's events keep their order on their partition even across the producer's retries
 * (docs/outbox.md#kafka-connection). `iam`: TLS and SASL/OAUTHBEARER with the function role's MSK IAM
 * token; `none`: plaintext, for a local broker.
 */
import { Kafka, logLevel as KafkaLogLevel, Partitioners, type Producer, type RetryOptions } from 'kafkajs';
import { defaultProvider } from '../core/lambda-credential-provider.js';
import { cachedCredentials } from '../core/sigv4-presign.js';
import { classifyKafkaError } from './kafka-refusals.js';
import { type MskCredentials, mskIamToken } from './msk-iam-token.js';
import {
  type OutboxMessage,
  POISON_REASONS,
  type Publisher,
  type PublishOutcome,
  TransientPublishError,
} from './publisher.js';

export type KafkaAuth = 'iam' | 'none';

export interface KafkaPublisherOptions {
  /** `host:port` of each bootstrap broker. */
  readonly brokers: readonly string[];
  readonly auth: KafkaAuth;
  /** The cluster's region, for the IAM token; required with `iam`. */
  readonly region?: string;
  /** @default the Lambda credential chain (lambdas/core/lambda-credential-provider.ts) */
  readonly credentials?: () => Promise<MskCredentials>;
  /** kafkajs's retry of a request. @default kafkajs's (5 retries from 300 ms, doubling) */
  readonly retry?: RetryOptions;
  /** Where kafkajs's errors go. @default nowhere */
  readonly log?: (message: string, details: Record<string, unknown>) => void;
}

/** The client id MSK and a broker's logs show. */
const CLIENT_ID = 'msk-inbox-outbox-relay';
/** TLS and the SASL exchange take longer than kafkajs's 1 s default allows on a cold start. */
const CONNECTION_TIMEOUT_MS = 5_000;

export class KafkaPublisher implements Publisher {
  readonly #kafka: Kafka;
  #producer: Promise<Producer> | undefined;

  constructor(options: KafkaPublisherOptions) {
    if (options.auth === 'iam' && !options.region) throw new Error('the MSK IAM token needs a region');
    this.#kafka = new Kafka({
      clientId: CLIENT_ID,
      brokers: [...options.brokers],
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.auth === 'iam' ? iamConnection(options) : {}),
      logLevel: KafkaLogLevel.ERROR,
      logCreator: () => (entry) => {
        if (entry.level > KafkaLogLevel.ERROR) return;
        const { message, ...details } = entry.log;
        options.log?.(`kafkajs: ${message}`, { namespace: entry.namespace, ...details });
      },
    });
  }

  async publish(topic: string, messages: readonly OutboxMessage[]): Promise<PublishOutcome> {
    const outcome = await this.#send(topic, messages);
    if (outcome.kind === 'poison' && POISON_REASONS[outcome.reason] === 'topic') {
      // kafkajs refreshes the metadata of every topic its producer ever sent to, and throws the first
      // topic's error: a topic deleted since would make every other topic look unknown. A fresh producer
      // asks about this topic alone, so only its answer quarantines.
      await this.#reset();
      return this.#send(topic, messages);
    }
    return outcome;
  }

  /** Ends the producer (tests, local runs); a deployed relay keeps it for the container's life. */
  async disconnect(): Promise<void> {
    await this.#reset();
  }

  async #send(topic: string, messages: readonly OutboxMessage[]): Promise<PublishOutcome> {
    const producer = await this.#connected();
    try {
      await producer.send({
        topic,
        // Every in-sync replica: an acknowledged event survives the leader's loss, so removing it is safe.
        acks: -1,
        messages: messages.map((message) => ({
          key: message.key,
          value: typeof message.value === 'string' ? message.value : Buffer.from(message.value),
          headers: { ...message.headers },
        })),
      });
      return { kind: 'published' };
    } catch (error) {
      const refusal = classifyKafkaError(error);
      if (refusal.kind === 'poison') {
        return { kind: 'poison', reason: refusal.reason, message: messageOf(error) };
      }
      throw new TransientPublishError(`Kafka did not acknowledge the send to ${topic}: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }

  #connected(): Promise<Producer> {
    if (this.#producer === undefined) {
      const producer = this.#kafka.producer({
        // Order: one request at a time, so a retried request never lands after a later one.
        maxInFlightRequests: 1,
        // MSK's idempotent producer needs IAM WriteDataIdempotently; the event ids make repeats harmless.
        idempotent: false,
        // The relay publishes to topics that exist: a missing one is quarantined, never created.
        allowAutoTopicCreation: false,
        // Java's murmur2 partitioner (kafkajs 2's default, named so an upgrade cannot change it): a key
        // lands on the partition any Java producer would put it on.
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      this.#producer = producer.connect().then(
        () => producer,
        (error: unknown) => {
          this.#producer = undefined;
          throw new TransientPublishError(`Could not connect to Kafka: ${messageOf(error)}`, {
            cause: error,
          });
        },
      );
    }
    return this.#producer;
  }

  async #reset(): Promise<void> {
    const producer = this.#producer;
    this.#producer = undefined;
    await producer?.then((connected) => connected.disconnect()).catch(() => undefined);
  }
}

/** TLS and SASL/OAUTHBEARER with a fresh token on every authentication, as MSK's IAM access control asks. */
function iamConnection(options: KafkaPublisherOptions) {
  const credentials = cachedCredentials(options.credentials ?? defaultProvider());
  const region = options.region as string;
  return {
    ssl: true,
    sasl: {
      mechanism: 'oauthbearer' as const,
      oauthBearerProvider: async () => ({ value: (await mskIamToken({ region, credentials })).token }),
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
