/** An in-process broker for the relay's tests: the Publisher port, answering as the test says. */
import {
  type OutboxMessage,
  type PoisonReason,
  type Publisher,
  type PublishOutcome,
  TransientPublishError,
} from '../../lambdas/outbox-relay/publisher.js';

/** What the fake broker was sent: one entry per publish call. */
export interface SentBatch {
  readonly topic: string;
  readonly messages: readonly OutboxMessage[];
}

/** What the fake answers for a send: published, poison, or a throw (transient). */
export type FakeAnswer = 'published' | PoisonReason | 'transient';

/**
 * A broker in process. `answer` decides each call from its messages (by default every send is
 * published); `acked` lists the messages of the published calls, in order: what a consumer of the topic
 * would read.
 */
export class FakePublisher implements Publisher {
  readonly calls: SentBatch[] = [];
  readonly acked: (OutboxMessage & { readonly topic: string })[] = [];
  answer: (topic: string, messages: readonly OutboxMessage[]) => FakeAnswer = () => 'published';

  async publish(topic: string, messages: readonly OutboxMessage[]): Promise<PublishOutcome> {
    this.calls.push({ topic, messages });
    const answer = this.answer(topic, messages);
    if (answer === 'transient') throw new TransientPublishError('broker unreachable (fake)');
    if (answer !== 'published') return { kind: 'poison', reason: answer, message: `${answer} (fake)` };
    for (const message of messages) this.acked.push({ ...message, topic });
    return { kind: 'published' };
  }

  /** The `event_id` headers of every acknowledged message, in order. */
  ackedIds(): string[] {
    return this.acked.map((message) => message.headers.event_id as string);
  }
}
