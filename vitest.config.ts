import { availableParallelism } from 'node:os';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The globalSetup of the projects whose tests talk to DynamoDB Local (through test/support/dynamodb.ts or
 * test/support/sdk-faults.ts, or by `inject('dynamoDbEndpoint')`). It starts one JVM for the whole run, shared
 * by all of them; a run of the other projects alone starts no Java process.
 */
export const DYNAMODB_LOCAL_SETUP = 'test/support/dynamodb-local-setup.ts';

/**
 * Debian's Postgres for the run where installed (else says once why its tests are skipped), and PGlite's
 * template made before any file starts a PGlite (test/support/postgres.ts).
 */
export const POSTGRES_SETUP = 'test/support/postgres-setup.ts';

/** Prints, once, why the Kafka broker tests (test/e2e/kafka) are skipped where kcat is missing. */
const BROKER_SETUP = 'test/support/broker-setup.ts';

/** Prints, once, why the dashboard's browser test is skipped where chromium is missing. */
const BROWSER_SETUP = 'test/support/browser-setup.ts';

/**
 * Test files at once. Vitest's default is one fewer than the CPUs: one on a 2-CPU machine (CI's), where most
 * files spend their time waiting on another process (DynamoDB Local, Postgres, redis-server, the Lambda
 * runtime, a broker, npm), so two keep both CPUs busy.
 */
const TEST_FILES_AT_ONCE = Math.max(2, availableParallelism() - 1);

/**
 * One project per test kind, each the folder of test/ with its name: `npx vitest run --project unit`.
 * `alone`: its files run one at a time, after every other file (vitest puts a project with one worker in a
 * group of its own at the end), for tests whose fault schedules time themselves against the machine.
 */
function project(
  name: string,
  globalSetup: string[] = [],
  { alone = false }: { readonly alone?: boolean } = {},
): TestProjectInlineConfiguration {
  return {
    test: {
      name,
      maxWorkers: alone ? 1 : TEST_FILES_AT_ONCE,
      include: [`test/${name}/**/*.test.ts`],
      globalSetup,
      testTimeout: 30_000,
      hookTimeout: 60_000,
      env: {
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        // Tests read outcomes through the telemetry port; the EMF test turns metrics back on.
        POWERTOOLS_METRICS_DISABLED: 'true',
      },
    },
  };
}

export const projects: TestProjectInlineConfiguration[] = [
  // pure, no I/O
  project('unit'),
  // CDK synth and cdk-nag
  project('infra'),
  // DynamoDB Local, and Postgres (test/integration/postgres)
  project('integration', [DYNAMODB_LOCAL_SETUP, POSTGRES_SETUP]),
  // fault schedules, hostile batches, on DynamoDB Local and on Postgres: a group commit under another file's
  // load fails transiently where the schedule expects it to succeed, so these run alone
  project('property', [DYNAMODB_LOCAL_SETUP, POSTGRES_SETUP], { alone: true }),
  // malformed events; the handler fuzz writes to DynamoDB Local
  project('fuzz', [DYNAMODB_LOCAL_SETUP]),
  // the emulator, the Kafka broker, the local tools' processes, the local dashboard in a browser
  project('e2e', [DYNAMODB_LOCAL_SETUP, BROKER_SETUP, BROWSER_SETUP]),
];

export default defineConfig({ test: { projects, maxWorkers: TEST_FILES_AT_ONCE } });
