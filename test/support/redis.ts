/**
 * Tests on Debian's redis-server run wherever it is installed; elsewhere they are skipped, and each file
 * says why in one line, unless REQUIRE_REDIS_VARIABLE is set, as .ci/run does: then they run and fail, so
 * CI never skips them. Each file starts its own server (a few milliseconds) and stops it after: in memory,
 * or durable, for tests that restart it.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import {
  type DurableRedis,
  INSTALL_REDIS,
  isRedisInstalled,
  type RunningRedis,
  startDurableRedisServer,
  startRedisServer,
} from '../../local/redis/redis-server.js';

export const REQUIRE_REDIS_VARIABLE = 'MSK_INBOX_REQUIRE_REDIS';

export const redisRequired = process.env[REQUIRE_REDIS_VARIABLE] === '1';

/** Pass to `describe.skipIf`. */
export const skipRedisTests = !redisRequired && !isRedisInstalled();

export const REDIS_SKIP_NOTICE = `redis-server not found: the Redis tests are skipped; ${INSTALL_REDIS} runs them (CI sets ${REQUIRE_REDIS_VARIABLE}=1, which fails them instead)`;

/** `body` against a redis-server of the file's own, from the block's beforeAll on. */
export function describeOnRedis(name: string, body: (redis: () => RunningRedis) => void): void {
  describeOnServer(name, startRedisServer, body);
}

/**
 * `body` against a durable redis-server of the file's own (local/redis/redis-server.ts
 * #startDurableRedisServer): its acknowledged writes survive `restart()`.
 */
export function describeOnDurableRedis(name: string, body: (redis: () => DurableRedis) => void): void {
  describeOnServer(name, startDurableRedisServer, body);
}

function describeOnServer<Server extends RunningRedis>(
  name: string,
  start: () => Promise<Server>,
  body: (redis: () => Server) => void,
): void {
  if (skipRedisTests) console.warn(REDIS_SKIP_NOTICE);
  describe.skipIf(skipRedisTests)(`${name} (redis-server)`, () => {
    let running: Server | undefined;
    beforeAll(async () => {
      running = await start();
    });
    afterAll(async () => {
      await running?.stop();
    });
    body(() => {
      if (running === undefined) throw new Error('the server is known from the block’s beforeAll on');
      return running;
    });
  });
}
