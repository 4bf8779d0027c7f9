/**
 * `npm run bench`: starts DynamoDB Local, runs every contender on the same batches (interleaved, so a
 * drift of the JVM or the machine touches all of them alike), measures the deployed bundle, its cold init
 * and its peak memory, and writes docs/benchmarks.md and docs/benchmarks.json.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localDynamoDbClient } from '../local/dynamodb-local/client.js';
import { startDynamoDbLocal } from '../local/dynamodb-local/server.js';
import { createAppTable, createInboxTable } from '../local/dynamodb-local/tables.js';
import { analysisOf } from './analysis.js';
import type { Contender } from './contenders/contender.js';
import { CONTENDERS } from './contenders/index.js';
import { describeMachine } from './machine.js';
import { measureBundle } from './measure/bundle.js';
import { measureColdInit } from './measure/cold-init.js';
import { measurePeakRss } from './measure/peak-rss.js';
import { type DeliveryMeasurement, runSequence } from './measure/throughput.js';
import { writeReport } from './report.js';
import { aggregate, type BenchResults, checkTargets } from './results.js';
import { buildSequences, orderWorkload, type Sequence } from './scenarios.js';

const projectRoot = resolve(import.meta.dirname, '..');
/** Git-ignored scratch space: bundles, the big event file. */
const workDirectory = join(projectRoot, '.cache', 'bench');

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'cold-starts': { type: 'string', default: '20' },
    out: { type: 'string', default: join(projectRoot, 'docs') },
  },
});
const runs = positiveInteger(args.runs, '--runs');
const coldStarts = positiveInteger(args['cold-starts'], '--cold-starts');

// The same quiet, warning-free environment for every contender.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

const startedMs = performance.now();
const progress = (message: string) =>
  console.log(`[${((performance.now() - startedMs) / 1000).toFixed(0).padStart(4)} s] ${message}`);

progress('starting DynamoDB Local');
const dynamoDb = await startDynamoDbLocal();
try {
  await mkdir(workDirectory, { recursive: true });
  const sequences = buildSequences();

  progress('warming up DynamoDB Local and the JIT (not measured)');
  const warmUp = warmUpSequence();
  for (const contender of CONTENDERS) {
    await runSequence(contender, warmUp, { endpoint: dynamoDb.endpoint, runId: 'warm', verify: true });
  }

  const measurements: DeliveryMeasurement[] = [];
  for (let run = 0; run < runs; run += 1) {
    for (const [index, sequence] of sequences.entries()) {
      // Rotated each run: no contender always follows the same one.
      for (const contender of rotate(CONTENDERS, run + index)) {
        const measured = await runSequence(contender, sequence, {
          endpoint: dynamoDb.endpoint,
          runId: `r${run}s${index}`,
          // Exactly-once checked on the first run; later runs repeat the same work.
          verify: run === 0,
        });
        measurements.push(...measured);
        progress(
          `run ${run + 1}/${runs} ${contender.name.padEnd(16)} ${measured
            .map((m) => `${m.scenario} ${((m.records / m.milliseconds) * 1000).toFixed(0)} rec/s`)
            .join(', ')}`,
        );
      }
    }
  }

  progress('building the handler bundle with the deployed settings');
  const bundle = await measureBundle(join(workDirectory, 'bundle'));
  const handlerEnv = await handlerEnvironment(dynamoDb.endpoint);
  progress(`cold init: ${coldStarts} fresh processes`);
  const coldInit = await measureColdInit(bundle.file, handlerEnv, coldStarts);
  progress('peak RSS: 10,000 records, about 6 MB, in a fresh process');
  const rssWorkload = orderWorkload({
    records: 10_000,
    partitions: 4,
    keysPerPartition: 256,
    duplicateShare: 0,
    seed: 4,
    prefix: 'm',
    noteBytes: 180,
  });
  const peakRss = await measurePeakRss({
    bundleFile: bundle.file,
    eventFile: join(workDirectory, 'rss-event.json'),
    event: rssWorkload.event,
    records: rssWorkload.records,
    env: handlerEnv,
  });

  const results: BenchResults = {
    scenarios: aggregate(measurements),
    bundle,
    proposedBundle: undefined,
    coldInit,
    peakRss,
    runs,
    wallSeconds: (performance.now() - startedMs) / 1000,
  };
  await writeReport(args.out, {
    results,
    machine: describeMachine(),
    settings: `${runs} runs per contender and scenario, ${coldStarts} cold starts`,
    analysis: analysisOf(results),
  });
  for (const target of checkTargets(results)) {
    progress(`${target.met ? 'met   ' : 'MISSED'} ${target.target}: ${target.measured}`);
  }
  progress(`wrote ${join(args.out, 'benchmarks.md')} and benchmarks.json`);
} finally {
  await dynamoDb.stop();
}

/** Small batches through every code path once, so the first measured run is not the JVM's warm-up. */
function warmUpSequence(): Sequence {
  const workload = orderWorkload({
    records: 400,
    partitions: 4,
    keysPerPartition: 16,
    duplicateShare: 0.2,
    seed: 9,
    prefix: 'w',
  });
  return {
    name: 'warm-up',
    deliveries: [
      { scenario: 'new-4p', event: workload.event, records: workload.records },
      { scenario: 'redelivery-4p', event: workload.event, records: workload.records },
    ],
    expectedBalances: workload.expectedBalances,
  };
}

/** The variables the function has in AWS, pointed at DynamoDB Local, with fresh tables. */
async function handlerEnvironment(endpoint: string): Promise<Record<string, string>> {
  const client = localDynamoDbClient(endpoint);
  await Promise.all([createInboxTable(client, 'deployed-inbox'), createAppTable(client, 'deployed-app')]);
  client.destroy();
  return {
    INBOX_TABLE_NAME: 'deployed-inbox',
    APP_TABLE_NAME: 'deployed-app',
    CONSUMER_NAME: 'order-consumer',
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_LAMBDA_FUNCTION_NAME: 'order-consumer',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // The KafkaConsumer construct's default: one summary line per batch, EMF metrics on.
    POWERTOOLS_LOG_LEVEL: 'INFO',
  };
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function positiveInteger(raw: string, name: string): number {
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a whole number >= 1`);
  return value;
}

export type { Contender };
