/** `npm start`: the consumer end to end on this machine, verified. Flags: `npm start -- --help`. */
import { constants } from 'node:os';
import { ProgressPrinter } from '../../operator/cli/progress-printer.js';
import { runCli } from '../../operator/cli/run-cli.js';
import { MOCK_CLUSTER_PARTITIONS_PER_TOPIC } from '../kafka/broker.js';
import { chooseDemoSource } from './demo-log.js';
import { DEFAULT_DEMO_OPTIONS, demoHelp, parseDemoArgs } from './demo-options.js';
import {
  demoTableNames,
  type KeptDynamoDbLocal,
  keptLines,
  startKeptDynamoDbLocal,
} from './kept-dynamodb.js';
import { type KeptInvokeApi, startKeptInvokeApi } from './kept-invoke-api.js';
import { formatPipelineSummary } from './pipeline/pipeline-summary.js';
import { PIPELINE_CRASH_RATE, PIPELINE_EVENTS, runPipeline } from './pipeline/run-pipeline.js';
import { DEMO_CONSUMER_NAME, runDemo } from './run-demo.js';
import { formatSummary } from './summary.js';

// The pinned SDK warns once per process on Node 20 (docs/toolchain.md#pinned-versions); the notice is not the demo's news.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

runCli({
  name: 'npm start',
  async run(argv) {
    const parsed = parseDemoArgs(argv);
    if (parsed.help) {
      console.log(demoHelp());
      return 0;
    }
    const printer = new ProgressPrinter();
    if (parsed.options.pipeline) {
      const choice = chooseDemoSource({
        ...parsed.options,
        kafkaBrokers: undefined,
        partitions: MOCK_CLUSTER_PARTITIONS_PER_TOPIC,
      });
      const result = await runPipeline(
        {
          source: choice.kind,
          // Three functions per order: the demo's default would take minutes; its own default is smaller.
          events:
            parsed.options.events === DEFAULT_DEMO_OPTIONS.events ? PIPELINE_EVENTS : parsed.options.events,
          accounts: parsed.options.accounts,
          seed: parsed.options.seed,
          // The demo's default rate crashes too few of the pipeline's invocations to show: its own is higher.
          crashRate:
            parsed.options.crashRate === DEFAULT_DEMO_OPTIONS.crashRate
              ? PIPELINE_CRASH_RATE
              : parsed.options.crashRate,
          logLevel: parsed.options.logLevel,
        },
        (line) => printer.log(line),
      ).finally(() => printer.finish());
      console.log(formatPipelineSummary(result, choice.note));
      return result.verification.ok ? 0 : 1;
    }
    // --keep: the demo runs against a DynamoDB Local that outlives it; a run that fails keeps nothing.
    let kept: KeptDynamoDbLocal | undefined;
    let keptInvokeApi: KeptInvokeApi | undefined;
    const stopKept = () => {
      kept?.stop();
      keptInvokeApi?.stop();
    };
    if (parsed.options.keep) {
      // Detached, the JVM would outlive a run that ends early (an error, Ctrl-C, SIGTERM, a closed pipe):
      // it goes with it. Only a run that gets to print how to reach it leaves it running.
      process.on('exit', stopKept);
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.once(signal, () => process.exit(128 + constants.signals[signal]));
      }
    }
    let result: Awaited<ReturnType<typeof runDemo>>;
    try {
      if (parsed.options.keep) {
        kept = await startKeptDynamoDbLocal();
        printer.log(`DynamoDB Local to keep: ${kept.endpoint} (pid ${kept.pid})`);
      }
      result = await runDemo(
        { ...parsed.options, dynamoDbEndpoint: kept?.endpoint ?? parsed.options.dynamoDbEndpoint },
        { progress: (line) => printer.log(line), status: (line) => printer.status(line) },
      );
    } catch (error) {
      stopKept();
      throw error;
    } finally {
      // A failure's message starts on a line of its own, not after the running count.
      printer.finish();
    }
    console.log(formatSummary(result));
    if (kept) {
      const tables = await demoTableNames(kept.endpoint);
      // The demo's function stays invocable too, as the run ran it (the exit hook stops both until printed).
      keptInvokeApi = await startKeptInvokeApi({
        functionName: DEMO_CONSUMER_NAME,
        ...result.function,
        dynamoDbEndpoint: kept.endpoint,
        timeoutMs: parsed.options.functionTimeoutMs,
      });
      console.log(
        keptLines(
          kept,
          DEMO_CONSUMER_NAME,
          tables,
          keptInvokeApi,
          DEMO_CONSUMER_NAME,
          parsed.options.format,
        ).join('\n'),
      );
      process.off('exit', stopKept);
    }
    return result.verification.ok ? 0 : 1;
  },
  failureLine: (message) => `mismatch: the run failed before verification: ${message}`,
});
