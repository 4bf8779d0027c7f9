/**
 * `npm run soak -- --schedules N [--poison P] [--seed S] [--concurrency C] [--endpoint URL]`
 *   runs N random fault schedules (seeds S, S+1, …) against DynamoDB Local, then P hostile batches (each
 *   delivered twice: local/poison/poison-promise.ts; default N / 20), and prints the figures and a line
 *   `violations: <count>`; the exit code is 1 when the count is not 0.
 * `npm run soak -- --seed S` replays one schedule with a step-by-step trace.
 *
 * Without --endpoint it starts its own DynamoDB Local (in memory) and stops it at the end.
 */
import { randomUUID } from 'node:crypto';
import { nonNegativeIntegerFlag, parseFlags, positiveIntegerFlag } from '../../operator/cli/parse-flags.js';
import { runCli } from '../../operator/cli/run-cli.js';
import { UserError } from '../../operator/cli/user-error.js';

// Before the SDK and Powertools load: no Node 20 notice, no EMF or logs on stdout.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

const USAGE = [
  'usage: npm run soak -- --schedules N [--poison P] [--seed S] [--concurrency C] [--endpoint URL] [--verbose]',
  '       npm run soak -- --seed S   (replay one schedule with a trace)',
].join('\n');

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
        endpoint: { type: 'string' },
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
    const concurrency = positiveIntegerFlag('concurrency', flag('concurrency'), 6);
    const poisonBatches = replay
      ? 0
      : nonNegativeIntegerFlag('poison', flag('poison'), Math.ceil(count / 20));
    const seeds = Array.from({ length: count }, (_, i) => ((firstSeed - 1 + i) % 2_147_483_647) + 1);

    const { createAppTable, createInboxTable } = await import('../dynamodb-local/tables.js');
    const { localDynamoDbClient } = await import('../dynamodb-local/client.js');
    const { answers, startDynamoDbLocal } = await import('../dynamodb-local/server.js');
    const { formatSummary, runSoak, summarize } = await import('./soak.js');
    const { scheduleFromSeed } = await import('./schedule.js');
    const { formatPoisonSoak, runPoisonSoak } = await import('../poison/poison-soak.js');

    const given = flag('endpoint');
    if (given !== undefined && !(await answers(given))) {
      throw new UserError(
        `nothing answers at --endpoint ${given}: start DynamoDB Local there, or drop the flag to have one started`,
      );
    }
    const server = given === undefined ? await startDynamoDbLocal() : undefined;
    const endpoint = given ?? server?.endpoint ?? '';
    const runId = randomUUID().slice(0, 8);
    try {
      const client = localDynamoDbClient(endpoint);
      const target = { endpoint, inboxTableName: `soak-inbox-${runId}`, appTableName: `soak-app-${runId}` };
      await createInboxTable(client, target.inboxTableName);
      await createAppTable(client, target.appTableName);
      client.destroy();

      console.log(
        replay
          ? `soak: replaying schedule ${firstSeed} against DynamoDB Local at ${endpoint}`
          : `soak: ${count} schedules, seeds ${seeds[0]}..${seeds.at(-1)}, ${concurrency} at a time, against DynamoDB Local at ${endpoint}`,
      );
      if (replay) console.log(JSON.stringify(scheduleFromSeed(firstSeed), null, 1));
      const started = Date.now();
      let lastPrinted = 0;
      const results = await runSoak({
        seeds,
        target,
        concurrency: replay ? 1 : concurrency,
        runId,
        trace: replay,
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
      console.log(formatSummary(summary));
      let poisonViolations = 0;
      if (poisonBatches > 0) {
        const poison = await runPoisonSoak({
          endpoint,
          batches: poisonBatches,
          seed: firstSeed,
          runId,
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
      return summary.violations.length + poisonViolations > 0 ? 1 : 0;
    } finally {
      await server?.stop();
    }
  },
});
