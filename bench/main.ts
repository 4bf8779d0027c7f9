/**
 * `npm run bench`: starts DynamoDB Local, runs every contender on the same batches (interleaved, so a
 * drift of the JVM or the machine touches all of them alike), at rttMs 0 and then over a modelled network
 * (bench/network-model.ts) for each base round trip swept, measures the deployed bundle, its cold init and
 * its peak memory, writes docs/benchmarks.md, docs/benchmarks.json and docs/benchmarks.svg, and prints
 * the targets' verdicts.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { localDynamoDbClient } from '../local/dynamodb-local/client.js';
import { startDynamoDbLocal } from '../local/dynamodb-local/server.js';
import { createAppTable, createInboxTable } from '../local/dynamodb-local/tables.js';
import { CACHE_DIRECTORY, displayPath, PROJECT_ROOT } from '../local/project-paths.js';
import { parseFlags, positiveIntegerFlag } from '../operator/cli/parse-flags.js';
import { runCli } from '../operator/cli/run-cli.js';
import { UserError } from '../operator/cli/user-error.js';
import { analysisOf } from './analysis.js';
import { ABLATIONS, CONTENDERS } from './contenders/index.js';
import {
  POWERTOOLS_HANDLER_ENTRY,
  POWERTOOLS_TABLE_VARIABLE,
  POWERTOOLS_TELEMETRY_HANDLER_ENTRY,
} from './contenders/powertools-entry.js';
import { costHeadline } from './cost/cost-report.js';
import { describeMachine } from './machine.js';
import { measureBundle } from './measure/bundle.js';
import { type Ceiling, describeCeiling, measureCeiling, medianCeiling } from './measure/ceiling.js';
import { orderConsumerVariables } from './measure/child-process.js';
import { COLD_STARTS, measureColdInit } from './measure/cold-init.js';
import { measureDecodeCost } from './measure/decode-cost.js';
import { initInstructionsWhereAvailable } from './measure/init-instructions.js';
import { measurePeakRss } from './measure/peak-rss.js';
import { runSequence } from './measure/throughput.js';
import { DEFAULT_RTT_SWEEP_MS, describeNetworkModel } from './network-model.js';
import { prepareOutDirectory } from './out-directory.js';
import { outboxMain } from './outbox/outbox-main.js';
import { existingOutboxSection } from './outbox/outbox-report.js';
import {
  existingPostgresSection,
  POSTGRES_JSON_FILE,
  postgresSection,
  withPostgresSection,
  writePostgresJson,
} from './postgres/postgres-report.js';
import { runPostgresBench } from './postgres/run-postgres-bench.js';
import { redisMain, redisSectionFor } from './redis/redis-main.js';
import { COST_PLOT_FILE, writeReport } from './report.js';
import { aggregate, type BenchResults, compareAblation, type RunMeasurement } from './results.js';
import { buildSequences, orderWorkload, rotate, warmUpSequence } from './scenarios.js';
import { checkTargets, formatTargets } from './targets.js';
import { tracingMain } from './tracing/tracing-main.js';
import { existingTracingSection } from './tracing/tracing-report.js';

/** Rounds of DynamoDB Local on its own after the contenders' warm-up, at most (about 4 s each). */
const MAX_WARM_UP_ROUNDS = 8;
const DEFAULT_RTT = [0, ...DEFAULT_RTT_SWEEP_MS].join(',');
const USAGE =
  'npm run bench -- [--runs N (default 5)] [--rtt MS,MS,... (default ' +
  DEFAULT_RTT +
  `; 0 always runs)] [--rtt-runs N (default 1)] [--cold-starts N (default ${COLD_STARTS})] [--out DIR (default docs)]` +
  " [--store all|dynamodb|postgres|redis (default all; postgres, redis: only that store's contenders, rewriting only their section)]" +
  ' [--outbox (only inbox-tx beside inbox-tx-emit and the relay, rewriting only their section)]' +
  ' [--tracing (only the CPU tracing costs per record, rewriting only its section)]';

/** Which contenders run: `postgres`, `redis` and `dynamodb` leave the other stores' sections of the page as they were. */
const STORES = ['all', 'dynamodb', 'postgres', 'redis'] as const;
type StoreChoice = (typeof STORES)[number];

/** Git-ignored scratch space: bundles, the big event file. */
const workDirectory = join(CACHE_DIRECTORY, 'bench');

runCli({
  name: 'npm run bench',
  async run(argv) {
    const args = parseFlags(
      argv,
      {
        runs: { type: 'string' },
        rtt: { type: 'string' },
        'rtt-runs': { type: 'string' },
        'cold-starts': { type: 'string' },
        out: { type: 'string' },
        store: { type: 'string' },
        outbox: { type: 'boolean' },
        tracing: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      `usage: ${USAGE}`,
    );
    if (args.help) {
      console.log(USAGE);
      return 0;
    }
    const runs = positiveIntegerFlag('runs', args.runs as string | undefined, 5);
    /** Enough to show each optimisation's effect (and hot-1p at rttMs 0); fewer, to keep the bench short. */
    const ablationRuns = Math.min(runs, 2);
    const coldStarts = positiveIntegerFlag(
      'cold-starts',
      args['cold-starts'] as string | undefined,
      COLD_STARTS,
    );
    const rttSweepMs = rttFlag(args.rtt as string | undefined);
    /** The modelled delays dominate there, so one run spreads little; each takes seconds per contender. */
    const sweepRuns = positiveIntegerFlag('rtt-runs', args['rtt-runs'] as string | undefined, 1);
    const store = storeFlag(args.store as string | undefined);
    // Last of the flags, first of the work: a bad --out fails now, not after the measuring.
    const out = await prepareOutDirectory(args.out as string | undefined, join(PROJECT_ROOT, 'docs'));
    const command = ['npm run bench', ...(argv.length > 0 ? ['--', ...argv] : [])].join(' ');

    // The same quiet, warning-free environment for every contender.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

    const startedMs = performance.now();
    const progress = (message: string) =>
      console.log(`[${((performance.now() - startedMs) / 1000).toFixed(0).padStart(4)} s] ${message}`);

    if (args.outbox === true) {
      await outboxMain({ out, runs, rttSweepMs, command, progress });
      return 0;
    }
    if (args.tracing === true) {
      await tracingMain({ out, runs, command, progress });
      return 0;
    }
    const postgresOptions = { runs, fewerRuns: ablationRuns, rttSweepMs, sweepRuns, progress };
    // Without --rtt, Redis and DynamoDB are each swept at their own round trips (bench/redis/run-redis-bench.ts).
    const redisOptions = {
      out,
      runs,
      rttSweepMs: args.rtt === undefined ? undefined : rttSweepMs,
      command,
      progress,
    };
    if (store === 'redis') {
      await redisMain(redisOptions);
      return 0;
    }
    if (store === 'postgres') {
      const postgres = await runPostgresBench(postgresOptions);
      await writePostgresJson(out, postgres);
      const page = await readFile(join(out, 'benchmarks.md'), 'utf8').catch(() => undefined);
      const section = postgresSection({ results: postgres, machine: describeMachine(), command });
      await writeFile(join(out, 'benchmarks.md'), withPostgresSection(page, section));
      progress(
        `wrote the Postgres section of ${displayPath(join(out, 'benchmarks.md'))} and ${POSTGRES_JSON_FILE}`,
      );
      return 0;
    }

    // First, while this process holds nothing else: its heap is what is measured.
    progress("decode cost: one value at the edge of each format's budget, and hostile ones refused");
    const decodeCost = measureDecodeCost();
    progress('starting DynamoDB Local');
    const dynamoDb = await startDynamoDbLocal();
    try {
      await mkdir(workDirectory, { recursive: true });
      const sequences = buildSequences();

      progress('warming up: every contender once, then DynamoDB Local until its rates settle (not measured)');
      const warmUp = warmUpSequence();
      for (const contender of CONTENDERS) {
        await runSequence(contender, warmUp, {
          endpoint: dynamoDb.endpoint,
          runId: 'warm',
          verify: true,
          rttMs: 0,
        });
      }
      // DynamoDB Local's JIT keeps speeding up for thousands of requests: without this the first run is slower.
      let previous = await measureCeiling(dynamoDb.endpoint, 300);
      for (let round = 0; round < MAX_WARM_UP_ROUNDS; round += 1) {
        const current = await measureCeiling(dynamoDb.endpoint, 300);
        progress(`warm-up: ${describeCeiling(current)}`);
        if (settled(previous, current)) break;
        previous = current;
      }

      const loadBefore = loadavg()[0] ?? 0;
      const measurements: RunMeasurement[] = [];
      const ceilings: Ceiling[] = [];
      for (let run = 0; run < runs; run += 1) {
        // Once per run, so DynamoDB Local's own bounds are measured as warm as the contenders they bound.
        ceilings.push(await measureCeiling(dynamoDb.endpoint, 400));
        progress(`run ${run + 1}/${runs} DynamoDB Local alone: ${describeCeiling(ceilings[run] as Ceiling)}`);
        for (const [index, sequence] of sequences.entries()) {
          if (sequence.fewerRuns && run >= ablationRuns) continue;
          // Ablations run beside their baseline, in the first runs only: enough to show the difference.
          const variants =
            run < ablationRuns
              ? ABLATIONS.filter((ablation) => ablation.sequence === sequence.name).map((a) => a.variant)
              : [];
          // Rotated each run: no contender always follows the same one.
          for (const contender of rotate([...CONTENDERS, ...variants], run + index)) {
            const measured = await runSequence(contender, sequence, {
              endpoint: dynamoDb.endpoint,
              runId: `r${run}s${index}`,
              // Exactly-once checked on the first run; later runs repeat the same work.
              verify: run === 0,
              rttMs: 0,
            });
            measurements.push(...measured.map((measurement) => ({ ...measurement, run })));
            progress(
              `run ${run + 1}/${runs} ${contender.name.padEnd(42)} ${measured
                .map((m) => `${m.scenario} ${((m.records / m.milliseconds) * 1000).toFixed(0)} rec/s`)
                .join(', ')}`,
            );
          }
        }
      }

      if (rttSweepMs.length > 0) progress(`network model: ${describeNetworkModel()}`);
      const sweepSequences = buildSequences('sweep');
      for (let run = 0; run < sweepRuns; run += 1) {
        for (const rttMs of rttSweepMs) {
          for (const [index, sequence] of sweepSequences.entries()) {
            for (const contender of rotate(CONTENDERS, run + index)) {
              const measured = await runSequence(contender, sequence, {
                endpoint: dynamoDb.endpoint,
                runId: `m${rttMs}r${run}s${index}`.replace('.', '_'),
                verify: run === 0,
                rttMs,
              });
              measurements.push(...measured.map((measurement) => ({ ...measurement, run })));
              progress(
                `rttMs ${String(rttMs).padEnd(3)} run ${run + 1}/${sweepRuns} ${contender.name.padEnd(19)} ${measured
                  .map((m) => `${m.scenario} ${((m.records / m.milliseconds) * 1000).toFixed(0)} rec/s`)
                  .join(', ')}`,
              );
            }
          }
        }
      }

      const loadAfter = loadavg()[0] ?? 0;

      progress("building the handler bundle as deployed, and with the SDK's default credential chain");
      const bundle = await measureBundle(join(workDirectory, 'bundle'));
      const defaultCredentialsBundle = await measureBundle(
        join(workDirectory, 'bundle-sdk-default-credentials'),
        'sdk-default-credentials',
      );
      const powertoolsBundle = await measureBundle(
        join(workDirectory, 'bundle-powertools'),
        'deployed',
        POWERTOOLS_HANDLER_ENTRY,
      );
      const powertoolsTelemetryBundle = await measureBundle(
        join(workDirectory, 'bundle-powertools-telemetry'),
        'deployed',
        POWERTOOLS_TELEMETRY_HANDLER_ENTRY,
      );
      const handlerEnv = await handlerEnvironment(dynamoDb.endpoint);
      const coldStartSubjects = {
        ours: { bundleFile: bundle.file, env: handlerEnv },
        powertools: { bundleFile: powertoolsBundle.file, env: handlerEnv },
        powertoolsWithTelemetry: { bundleFile: powertoolsTelemetryBundle.file, env: handlerEnv },
      };
      progress(`cold init: ${coldStarts} fresh processes each, ours and two Powertools consumers' in turns`);
      const {
        ours: coldInit,
        powertools: powertoolsColdInit,
        powertoolsWithTelemetry: powertoolsTelemetryColdInit,
      } = await measureColdInit(coldStartSubjects, coldStarts);
      const initInstructions = await initInstructionsWhereAvailable(
        coldStartSubjects,
        workDirectory,
        progress,
      );
      progress('peak RSS: 10,000 records, about 6 MB, in a fresh process');
      const rssWorkload = orderWorkload({
        records: 10_000,
        partitions: 4,
        keysPerPartition: 256,
        duplicateShare: 0,
        seed: 4,
        prefix: 'm',
        // About 6 MB of event JSON, just under the 6 MB (6,291,456 bytes) one invocation carries.
        noteBytes: 195,
      });
      const peakRss = await measurePeakRss({
        bundleFile: bundle.file,
        eventFile: join(workDirectory, 'rss-event.json'),
        event: rssWorkload.event,
        records: rssWorkload.records,
        env: handlerEnv,
      });

      const mainNames = new Set(CONTENDERS.map((contender) => contender.name));
      const main = measurements.filter((m) => mainNames.has(m.contender));
      const results: BenchResults = {
        scenarios: aggregate(main.filter((m) => m.rttMs === 0)),
        sweep: rttSweepMs.flatMap((rttMs) => aggregate(main.filter((m) => m.rttMs === rttMs))),
        rttSweepMs,
        sweepRuns,
        ablations: ABLATIONS.map((ablation) => compareAblation(measurements, ablation, ablationRuns)),
        ceiling: medianCeiling(ceilings),
        loadAverage: { before: loadBefore, after: loadAfter },
        bundle,
        defaultCredentialsBundle,
        coldInit,
        powertools: { bundle: powertoolsBundle, coldInit: powertoolsColdInit },
        powertoolsWithTelemetry: { bundle: powertoolsTelemetryBundle, coldInit: powertoolsTelemetryColdInit },
        initInstructions,
        peakRss,
        decodeCost,
        runs,
        wallSeconds: (performance.now() - startedMs) / 1000,
      };
      const redisSection = await redisSectionFor(store === 'all', {
        ...redisOptions,
        dynamoDbEndpoint: dynamoDb.endpoint,
      });
      // Beside the DynamoDB figures, or the section the last Postgres run wrote, kept as it was.
      const postgres = store === 'all' ? await runPostgresBench(postgresOptions) : undefined;
      if (postgres) await writePostgresJson(out, postgres);
      const json = await writeReport(out, {
        results,
        postgresSection: postgres
          ? postgresSection({ results: postgres, machine: describeMachine(), command })
          : await existingPostgresSection(out),
        redisSection,
        outboxSection: await existingOutboxSection(out),
        tracingSection: await existingTracingSection(out),
        machine: describeMachine(),
        settings:
          `${runs} runs per contender and scenario at rttMs 0 (ablations and hot-1p: ${ablationRuns}); ` +
          `rttMs ${rttSweepMs.join(', ') || '(none)'}: ${sweepRuns} run${sweepRuns === 1 ? '' : 's'} each; ${coldStarts} cold starts`,
        analysis: analysisOf(results),
      });
      progress(
        `wrote ${displayPath(join(out, 'benchmarks.md'))}, benchmarks.json, benchmarks.svg and ${COST_PLOT_FILE}`,
      );
      console.log(
        `\nTargets (from ${displayPath(join(out, 'benchmarks.json'))}):\n${formatTargets(checkTargets(json))}`,
      );
      console.log(
        `\n${costHeadline(
          json.scenarios,
          CONTENDERS.map((contender) => contender.name),
        ).join('\n')}`,
      );
    } finally {
      await dynamoDb.stop();
    }
    return 0;
  },
});

/** Transactions at 4 in flight changed by less than 10% from one round to the next. */
function settled(previous: Ceiling, current: Ceiling): boolean {
  const before = previous.transactionsPerSecond[4] ?? 0;
  const now = current.transactionsPerSecond[4] ?? 0;
  return before > 0 && Math.abs(now - before) / before < 0.1;
}

/** The variables the function has in AWS, pointed at DynamoDB Local, with fresh tables. */
async function handlerEnvironment(endpoint: string): Promise<Record<string, string>> {
  const client = localDynamoDbClient(endpoint);
  await Promise.all([createInboxTable(client, 'deployed-inbox'), createAppTable(client, 'deployed-app')]);
  client.destroy();
  return {
    ...orderConsumerVariables({ inbox: 'deployed-inbox', app: 'deployed-app' }),
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    // The Powertools consumer's table (bench/contenders/powertools-handler.ts): only its import is timed.
    [POWERTOOLS_TABLE_VARIABLE]: 'deployed-idempotency',
    // The KafkaConsumer construct's default: one summary line per batch, EMF metrics on.
    POWERTOOLS_LOG_LEVEL: 'INFO',
  };
}

function storeFlag(raw: string | undefined): StoreChoice {
  if (raw === undefined) return 'all';
  if (!(STORES as readonly string[]).includes(raw)) {
    throw new UserError(`--store takes ${STORES.join(', ')}, got ${raw}`);
  }
  return raw as StoreChoice;
}

/** The base round trips to sweep beside 0 (which always runs: the page's rttMs-0 sections need it). */
function rttFlag(raw: string | undefined): number[] {
  if (raw === undefined) return [...DEFAULT_RTT_SWEEP_MS];
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (raw.trim() === '' || values.some((value) => !Number.isFinite(value) || value < 0 || value > 1_000)) {
    throw new UserError(
      `--rtt takes milliseconds from 0 to 1000, comma-separated (such as 0,10), got ${raw}`,
    );
  }
  return [...new Set(values.filter((value) => value > 0))].sort((a, b) => a - b);
}
