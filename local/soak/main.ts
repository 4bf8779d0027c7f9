/**
 * `npm run soak -- --schedules N [--store dynamodb|postgres|redis] [--poison P] [--seed S] [--concurrency C]
 *   [--endpoint URL | --url URL]` runs N random fault schedules (seeds S, S+1, …) against the store
 *   (DynamoDB Local by default), then P hostile batches (each delivered twice: local/poison/poison-promise.ts;
 *   default N / 20; none on Redis), and prints the figures and a line `violations: <count>`; the exit code
 *   is 1 when the count is not 0.
 * `npm run soak -- [--store postgres|redis] --seed S` replays one schedule with a step-by-step trace.
 * `--outbox` (DynamoDB only): the consumer emits events and a relay publishes them, with its own faults
 *   (local/soak/outbox-schedule.ts, docs/fault-tolerance.md#outbox-schedules); add it to a replay too.
 * `--store redis` runs the side-effect schedules only (Redis cannot commit a database's writes:
 *   store-faults.ts#STORE_MODES), and its own redis-server restarts under them (docs/redis.md).
 *
 * Without --endpoint it starts its own DynamoDB Local (in memory); with --store postgres and no --url,
 * Debian's postgresql where installed, else PGlite; with --store redis and no --url, a durable
 * redis-server (soak-targets.ts); each is stopped at the end.
 */
import { randomUUID } from 'node:crypto';
import { nonNegativeIntegerFlag, parseFlags, positiveIntegerFlag } from '../../operator/cli/parse-flags.js';
import { runCli } from '../../operator/cli/run-cli.js';
import { UserError } from '../../operator/cli/user-error.js';
import { INSTALL_REDIS } from '../redis/redis-server.js';
import type { SoakStoreKind } from './schedule.js';

// Before the SDK and Powertools load: no Node 20 notice, no EMF or logs on stdout.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

const USAGE = [
  'usage: npm run soak -- --schedules N [--store dynamodb|postgres|redis] [--poison P] [--seed S] [--concurrency C]',
  '                      [--endpoint URL (DynamoDB Local) | --url URL (Postgres, Redis)] [--outbox] [--verbose]',
  '       npm run soak -- [--store postgres|redis] [--outbox] --seed S   (replay one schedule with a trace)',
  '  --store redis: the side-effect schedules only (Redis cannot commit a database write), no --poison or',
  '  --outbox; without --url its own redis-server, which the schedules crash and restart (redis-server:',
  `  ${INSTALL_REDIS})`,
].join('\n');

const STORES: readonly SoakStoreKind[] = ['dynamodb', 'postgres', 'redis'];

runCli({
  name: 'npm run soak',
  async run(argv) {
    const values = parseFlags(
      argv,
      {
        schedules: { type: 'string' },
        poison: { type: 'string' },
        seed: { type: 'string' },
        concurrency: { type: 'string' },
        store: { type: 'string' },
        endpoint: { type: 'string' },
        url: { type: 'string' },
        outbox: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      'npm run soak -- --help shows the usage',
    );
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    const flag = (name: string) => values[name] as string | undefined;
    const replay = flag('seed') !== undefined && flag('schedules') === undefined;
    const count = positiveIntegerFlag('schedules', flag('schedules'), replay ? 1 : 100);
    const firstSeed = positiveIntegerFlag(
      'seed',
      flag('seed'),
      1 + Math.floor(Math.random() * 2_000_000_000),
    );
    const store = (flag('store') ?? 'dynamodb') as SoakStoreKind;
    if (!STORES.includes(store)) {
      throw new UserError(`--store ${store} is not a store: ${STORES.join(' or ')}`);
    }
    if (store === 'dynamodb' && flag('url') !== undefined) {
      throw new UserError(
        '--url is the Postgres or Redis server: add --store postgres or --store redis, or give DynamoDB Local as --endpoint',
      );
    }
    if (store !== 'dynamodb' && flag('endpoint') !== undefined) {
      throw new UserError(`--endpoint is DynamoDB Local: with --store ${store} give the server as --url`);
    }
    const outbox = values.outbox === true;
    if (outbox && store !== 'dynamodb') {
      throw new UserError(`--outbox runs on DynamoDB Local only: drop --store ${store}`);
    }
    if (store === 'redis' && flag('poison') !== undefined) {
      throw new UserError(
        '--poison runs on DynamoDB Local and Postgres: the hostile batches are transactional, which Redis cannot commit',
      );
    }
    const poisonBatches =
      replay || store === 'redis'
        ? 0
        : nonNegativeIntegerFlag('poison', flag('poison'), Math.ceil(count / 20));
    const seeds = Array.from({ length: count }, (_, i) => ((firstSeed - 1 + i) % 2_147_483_647) + 1);

    const { formatSummary, runSoak, summarize } = await import('./soak.js');
    const { scheduleFromSeed } = await import('./schedule.js');
    const { formatOutboxSummary, summarizeOutbox } = await import('./outbox-summary.js');
    const { formatPoisonSoak, runPoisonSoak } = await import('../poison/poison-soak.js');
    const { openDynamoDbTarget, openPostgresTarget, openRedisTarget } = await import('./soak-targets.js');
    const { formatServerRestarts } = await import('./redis-server-restarts.js');

    const runId = randomUUID().slice(0, 8);
    const opened =
      store === 'postgres'
        ? await openPostgresTarget(flag('url'), runId)
        : store === 'redis'
          ? await openRedisTarget(flag('url'), runId)
          : await openDynamoDbTarget(flag('endpoint'), runId);
    const concurrency = positiveIntegerFlag('concurrency', flag('concurrency'), opened.concurrency);
    const { target } = opened;
    try {
      console.log(
        replay
          ? `soak: replaying schedule ${firstSeed} against ${opened.description}`
          : `soak: ${count} schedules, seeds ${seeds[0]}..${seeds.at(-1)}, ${concurrency} at a time, against ${opened.description}`,
      );
      if (replay) console.log(JSON.stringify(scheduleFromSeed(firstSeed, store, { outbox }), null, 1));
      const started = Date.now();
      let lastPrinted = 0;
      const results = await runSoak({
        seeds,
        target,
        concurrency: replay ? 1 : concurrency,
        runId,
        trace: replay,
        outbox,
        onResult: (result, done) => {
          const percent = Math.floor((100 * done) / count);
          if (!replay && percent >= lastPrinted + 5) {
            lastPrinted = percent;
            const elapsed = ((Date.now() - started) / 1000).toFixed(0);
            process.stderr.write(`  ${done}/${count} schedules (${elapsed} s)\n`);
          }
          if (replay) console.log(result.trace.join('\n'));
        },
      });
      const summary = summarize(results);
      console.log(formatSummary(summary, store, outbox));
      if (outbox) console.log(formatOutboxSummary(summarizeOutbox(results)));
      let restartFailures = 0;
      if (target.store === 'redis' && target.restarts) {
        console.log(formatServerRestarts(target.restarts));
        restartFailures = target.restarts.failures.length;
      }
      let poisonViolations = 0;
      if (poisonBatches > 0 && opened.poison) {
        const poison = await runPoisonSoak({
          store: opened.poison,
          batches: poisonBatches,
          seed: firstSeed,
          onBatch: (done) => {
            if (done % Math.max(1, Math.floor(poisonBatches / 10)) === 0) {
              process.stderr.write(`  ${done}/${poisonBatches} poison batches\n`);
            }
          },
        });
        console.log(formatPoisonSoak(poison));
        poisonViolations = poison.violations.length;
      }
      console.log(`wall time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return summary.violations.length + poisonViolations + restartFailures > 0 ? 1 : 0;
    } finally {
      await opened.close();
    }
  },
});
