/**
 * The faults an outbox schedule's relay meets (outbox-plan.ts), at its two ports: the broker (a fake
 * Publisher that logs every acknowledged message) and the outbox table (an SDK middleware inside the retry
 * loop, as local/soak/fault-injection.ts does for the consumer). A crash marks the invocation dead: nothing
 * it sends after that reaches the broker or DynamoDB, as nothing leaves a process that is gone.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type OutboxMessage,
  type Publisher,
  type PublishOutcome,
  TransientPublishError,
} from '../../lambdas/outbox-relay/publisher.js';
import { localDynamoDbClient } from '../dynamodb-local/client.js';
import { serviceUnavailableError } from '../dynamodb-local/sdk-errors.js';
import type { PublishedCopy } from './outbox-checks.js';
import type { RelayFault, RelayFaultKind } from './outbox-plan.js';

/** One relay invocation's run: its faults and how far it got. */
export class RelayInvocation {
  readonly index: number;
  readonly faults: readonly RelayFault[];
  /** The process died: its response is lost, whatever it returns. */
  dead = false;
  produces = 0;
  removalAttempts = 0;
  readonly #count: (kind: string) => void;

  constructor(index: number, faults: readonly RelayFault[], count: (kind: string) => void) {
    this.index = index;
    this.faults = faults;
    this.#count = count;
  }

  /** The fault of `kind` striking the `n`th occurrence (within its burst for removal failures). */
  strikes(kind: RelayFaultKind, n: number): boolean {
    return this.faults.some(
      (f) => f.kind === kind && n >= f.nth && n < f.nth + (kind === 'removal-failure' ? f.burst : 1),
    );
  }

  fired(kind: RelayFaultKind): void {
    this.#count(`relay:${kind}`);
  }

  crash(kind: RelayFaultKind): RelayCrashedError {
    this.dead = true;
    this.fired(kind);
    return new RelayCrashedError(`relay invocation ${this.index} died (${kind})`);
  }
}

export class RelayCrashedError extends Error {
  override readonly name = 'RelayCrashedError';
}

/** The invocation running now (the schedule's relay invocations run one after another). */
export interface CurrentInvocation {
  current: RelayInvocation | undefined;
}

const REMOVALS = new Set(['UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand']);

/** The relay's client, as the handler pins it (maxAttempts 3), with the current invocation's faults. */
export function relayTableClient(endpoint: string, running: CurrentInvocation): DynamoDBClient {
  const client = localDynamoDbClient(endpoint, 3);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const invocation = running.current;
      if (!invocation) return next(args);
      if (invocation.dead) throw new RelayCrashedError('execution environment already ended');
      if (!REMOVALS.has(String(context.commandName))) return next(args);
      const n = invocation.removalAttempts++;
      if (invocation.strikes('removal-failure', n)) {
        invocation.fired('removal-failure');
        throw serviceUnavailableError();
      }
      const answer = await next(args);
      // The removal was applied; the process dies before it hears so, and before the checkpoint.
      if (invocation.strikes('crash-after-removal', n)) throw invocation.crash('crash-after-removal');
      return answer;
    },
    { step: 'deserialize', name: 'soakRelayFaults', priority: 'low' },
  );
  return client;
}

/**
 * The broker in process: every acknowledged message logged in order (per topic and key is a filter of the
 * log), the poison ids refused for good (a request holding one is refused whole, as a partition's records
 * are appended all or none), and the current invocation's produce faults.
 */
export class SoakPublisher implements Publisher {
  readonly log: PublishedCopy[] = [];
  readonly #running: CurrentInvocation;
  readonly #poison: ReadonlySet<string>;

  constructor(running: CurrentInvocation, poison: ReadonlySet<string>) {
    this.#running = running;
    this.#poison = poison;
  }

  async publish(topic: string, messages: readonly OutboxMessage[]): Promise<PublishOutcome> {
    const invocation = this.#running.current;
    if (invocation?.dead) throw new RelayCrashedError('execution environment already ended');
    const n = invocation ? invocation.produces++ : 0;
    if (invocation?.strikes('transient-produce', n)) {
      invocation.fired('transient-produce');
      throw new TransientPublishError('not enough in-sync replicas (soak)');
    }
    if (messages.some((message) => this.#poison.has(message.headers.event_id ?? ''))) {
      return { kind: 'poison', reason: 'message-too-large', message: 'the soak refuses this event for good' };
    }
    for (const message of messages) {
      this.log.push({
        topic,
        key: message.key,
        id: message.headers.event_id,
        value: typeof message.value === 'string' ? message.value : Buffer.from(message.value).toString(),
      });
    }
    if (invocation?.strikes('crash-after-produce', n)) throw invocation.crash('crash-after-produce');
    return { kind: 'published' };
  }
}
