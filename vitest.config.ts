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

/** One project per test kind, each the folder of test/ with its name: `npx vitest run --project unit`. */
function project(name: string, globalSetup: string[] = []): TestProjectInlineConfiguration {
  return {
    test: {
      name,
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
  // fault schedules, hostile batches, on DynamoDB Local and on Postgres
  project('property', [DYNAMODB_LOCAL_SETUP, POSTGRES_SETUP]),
  // malformed events; the handler fuzz writes to DynamoDB Local
  project('fuzz', [DYNAMODB_LOCAL_SETUP]),
  // the emulator, the Kafka broker, the local tools' processes, the local dashboard in a browser
  project('e2e', [DYNAMODB_LOCAL_SETUP, BROKER_SETUP, BROWSER_SETUP]),
];

export default defineConfig({ test: { projects } });
