/** What a team sees of the handler side: the test hooks are not in it. */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../lambdas/core/clock.js';
import type { InboxConsumerHooks } from '../../../lambdas/core/create-inbox-consumer.js';
import type { InboxConsumerOptions } from '../../../lambdas/core/index.js';
import * as entry from '../../../lambdas/core/index.js';

describe('the public options', () => {
  it('leave the clock and the outcome observer to createObservedInboxConsumer, which the entry lacks', () => {
    const hooks: InboxConsumerHooks = { clock: systemClock, observe: { batchProcessed: () => undefined } };
    const effect = () => ({ kind: 'skip', reason: 'none' }) as const;
    const options: InboxConsumerOptions[] = [
      { effect },
      // @ts-expect-error the clock is a hook, not an option
      { effect, clock: hooks.clock },
      // @ts-expect-error so is the observer
      { effect, observe: hooks.observe },
    ];

    expect(options).toHaveLength(3);
    expect(Object.keys(entry)).toContain('createInboxConsumer');
    expect(Object.keys(entry)).not.toContain('createObservedInboxConsumer');
  });
});
