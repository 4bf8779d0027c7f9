/**
 * `npm run soak -- --schedules N [--seed S] [--concurrency C] [--endpoint URL]`
 *   runs N random fault schedules (seeds S, S+1, …) against DynamoDB Local and prints the figures and a line
 *   `violations: <count>`; the exit code is 1 when the count is not 0.
 * `npm run soak -- --seed S` replays one schedule with a step-by-step trace.
 *
 * Without --endpoint it starts its own DynamoDB Local (in memory) and stops it at the end.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

// Before the SDK and Powertools load: no Node 20 notice, no EMF or logs on stdout.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

const { values } = parseArgs({
  options: {
    schedules: { type: 'string' },
    seed: { type: 'string' },
    concurrency: { type: 'string', default: '6' },
    endpoint: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log('usage: npm run soak -- --schedules N [--seed S] [--concurrency C] [--endpoint URL]');
  console.log('       npm run soak -- --seed S   (replay one schedule with a trace)');
  process.exit(0);
}

function positiveInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) {
    console.error(`--${name} must be a positive whole number, got ${raw}`);
    process.exit(2);
  }
  return value;
}

const replay = values.seed !== undefined && values.schedules === undefined;
const count = positiveInteger('schedules', values.schedules, replay ? 1 : 100);
const firstSeed = positiveInteger('seed', values.seed, 1 + Math.floor(Math.random() * 2_000_000_000));
const concurrency = positiveInteger('concurrency', values.concurrency, 6);
const seeds = Array.from({ length: count }, (_, i) => ((firstSeed - 1 + i) % 2_147_483_647) + 1);

const { createAppTable, createInboxTable } = await import('../dynamodb-local/tables.js');
const { localDynamoDbClient } = await import('../dynamodb-local/client.js');
const { startDynamoDbLocal } = await import('../dynamodb-local/server.js');
const { formatSummary, runSoak, summarize } = await import('./soak.js');
const { scheduleFromSeed } = await import('./schedule.js');

const server = values.endpoint ? undefined : await startDynamoDbLocal();
const endpoint = values.endpoint ?? server?.endpoint ?? '';
const runId = randomUUID().slice(0, 8);
let exitCode = 0;
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
  console.log(`wall time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (summary.violations.length > 0) exitCode = 1;
} finally {
  await server?.stop();
}
process.exit(exitCode);
