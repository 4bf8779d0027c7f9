import { afterEach, describe, expect, it, vi } from 'vitest';
import { isRefusal, RedisCommandCounter } from '../../../bench/redis/redis-command-counter.js';
import { modelledRedis } from '../../../bench/redis/redis-network-model.js';
import type { RedisScripting } from '../../../lambdas/redis/redis-inbox-store.js';
import {
  CLAIM_SCRIPT,
  COMPLETE_SCRIPT,
  QUARANTINE_SCRIPT,
  RELEASE_SCRIPT,
} from '../../../lambdas/redis/redis-scripts.js';

/** A server that answers at once with what `answers` says for each script, or refuses a script named FAIL. */
function fakeRedis(answers: ReadonlyMap<string, unknown> = new Map()): RedisScripting {
  return {
    eval: async (script) => {
      if (script === 'FAIL') throw new Error('ERR script failed');
      return answers.get(script) ?? null;
    },
    exists: async (...keys) => keys.length,
  };
}

/** Holds its callers until the test ends each hold, and says when each round trip was to end. */
function handHold() {
  const deadlines: number[] = [];
  const ends: (() => void)[] = [];
  const hold = (deadlineMs: number) =>
    new Promise<void>((resolve) => {
      deadlines.push(deadlineMs);
      ends.push(resolve);
    });
  const endAll = () => {
    for (const end of ends.splice(0)) end();
  };
  return { hold, deadlines, endAll };
}

/** Whether the promise has settled once the work queued so far has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('the Redis round-trip model', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('holds each answer, an error too, until rttMs after its command was sent', async () => {
    vi.spyOn(performance, 'now').mockReturnValue(1_000);
    const { hold, deadlines, endAll } = handHold();
    const redis = modelledRedis(fakeRedis(), { rttMs: 0.5, counter: new RedisCommandCounter() }, hold);
    const answer = redis.eval(CLAIM_SCRIPT, 1, 'k', 'row', 1000, 0);
    const failure = redis.eval('FAIL', 0);
    failure.catch(() => undefined);

    expect([await settled(answer), await settled(failure)]).toEqual([false, false]);
    expect(deadlines).toEqual([1_000.5, 1_000.5]);
    endAll();
    await expect(answer).resolves.toBeNull();
    await expect(failure).rejects.toThrow('ERR script failed');
  });

  it('lets commands overlap, as a network does: the second is sent while the first is held', async () => {
    const { hold, deadlines, endAll } = handHold();
    const sent: string[] = [];
    const server = fakeRedis();
    const client: RedisScripting = {
      eval: (...args) => {
        sent.push('eval');
        return server.eval(...args);
      },
      exists: (...keys) => {
        sent.push('exists');
        return server.exists(...keys);
      },
    };
    const redis = modelledRedis(client, { rttMs: 1, counter: new RedisCommandCounter() }, hold);
    const first = redis.eval(CLAIM_SCRIPT, 1, 'a');
    const second = redis.exists('b');

    expect(await settled(first)).toBe(false);
    expect(sent).toEqual(['eval', 'exists']);
    expect(deadlines).toHaveLength(2);
    endAll();
    await Promise.all([first, second]);
  });

  it('at rttMs 0 holds nothing, and still counts', async () => {
    const counter = new RedisCommandCounter();
    const { hold, deadlines } = handHold();
    const redis = modelledRedis(fakeRedis(), { rttMs: 0, counter }, hold);

    await expect(redis.exists('k')).resolves.toBe(1);
    expect(deadlines).toEqual([]);
    expect(counter.tally().requests).toBe(1);
  });

  it('counts each command by the store script it runs, and the answers that wrote nothing as refused', async () => {
    const counter = new RedisCommandCounter();
    const found = '{"s":"COMPLETED"}';
    const redis = modelledRedis(fakeRedis(new Map([[COMPLETE_SCRIPT, 'completed']])), { rttMs: 0, counter });
    await redis.eval(CLAIM_SCRIPT, 1, 'new');
    await redis.eval(COMPLETE_SCRIPT, 1, 'new');
    const duplicate = modelledRedis(fakeRedis(new Map([[CLAIM_SCRIPT, found]])), { rttMs: 0, counter });
    await duplicate.eval(CLAIM_SCRIPT, 1, 'again');
    await redis.exists('quarantined');

    expect(counter.tally()).toEqual({
      requests: 4,
      refused: 1,
      transactions: 0,
      wcu: 0,
      byCommand: { claim: 2, complete: 1, EXISTS: 1 },
    });
    counter.reset();
    expect(counter.tally()).toMatchObject({ requests: 0, refused: 0, byCommand: {} });
  });
});

describe('which answers are refusals', () => {
  it('is a claim that found a row, a lost lease, an entry quarantined already; never a write', () => {
    expect(isRefusal('claim', '{"s":"IN_PROGRESS"}')).toBe(true);
    expect(isRefusal('claim', null)).toBe(false);
    expect(isRefusal('complete', 'lease-lost')).toBe(true);
    expect(isRefusal('complete', 'completed')).toBe(false);
    expect(isRefusal('complete', 'restored')).toBe(false);
    expect(isRefusal('release', 'lease-lost')).toBe(true);
    expect(isRefusal('release', 'released')).toBe(false);
    expect(isRefusal('quarantine', 'already-quarantined')).toBe(true);
    expect(isRefusal('quarantine', 'quarantined')).toBe(false);
    expect(isRefusal('EXISTS', 1)).toBe(false);
  });

  it('names every script the store runs', async () => {
    const counter = new RedisCommandCounter();
    const redis = modelledRedis(fakeRedis(), { rttMs: 0, counter });
    for (const script of [CLAIM_SCRIPT, COMPLETE_SCRIPT, RELEASE_SCRIPT, QUARANTINE_SCRIPT, 'return 1']) {
      await redis.eval(script, 0);
    }
    expect(counter.tally().byCommand).toEqual({
      claim: 1,
      complete: 1,
      release: 1,
      quarantine: 1,
      EVAL: 1,
    });
  });
});
