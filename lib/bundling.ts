/**
 * How the consumer function is bundled, in one place: the CDK construct maps it to NodejsFunction's
 * bundling options and the local runtime and the benchmark to esbuild's, so `npm start` and `npm run bench`
 * run the very bundle `cdk deploy` ships. Importing it loads neither aws-cdk-lib nor esbuild.
 */
import { resolve } from 'node:path';
import type { BuildOptions } from 'esbuild';

const projectRoot = resolve(import.meta.dirname, '..');
/** `.ts` in this repository, `.js` in the built package (dist/): the alias below names the file that is there. */
const SOURCE_EXTENSION = import.meta.filename.endsWith('.ts') ? 'ts' : 'js';

/**
 * The outbox relay's entry (docs/outbox.md), bundled with HANDLER_BUNDLE by OutboxRelay: the package's own
 * handler, not one the team writes.
 */
export const RELAY_ENTRY = resolve(projectRoot, 'lambdas', 'outbox-relay', `handler.${SOURCE_EXTENSION}`);

/**
 * The Postgres outbox relay's entry (docs/postgres.md#outbox), bundled with HANDLER_BUNDLE by
 * PostgresOutboxRelay: the package's own handler, invoked on a schedule.
 */
export const POSTGRES_RELAY_ENTRY = resolve(
  projectRoot,
  'lambdas',
  'postgres',
  'outbox',
  `relay-handler.${SOURCE_EXTENSION}`,
);

export const HANDLER_BUNDLE = {
  /** Lambda's runtime: nodejs22.x. */
  target: 'node22',
  platform: 'node',
  format: 'esm',
  /** ESM builds of the SDK and Powertools first: smaller, tree-shaken. */
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: true,
  /** The AWS SDK is bundled (not taken from the runtime) so the pinned version is the one that runs. */
  external: [] as string[],
  /**
   * The SDK's default Node.js credential chain (SSO, profiles, STS, instance metadata: a third of the
   * bundle) replaced by the chain a Lambda function can use: environment, then container endpoint.
   */
  alias: {
    '@aws-sdk/credential-provider-node': resolve(
      projectRoot,
      'lambdas',
      'core',
      `lambda-credential-provider.${SOURCE_EXTENSION}`,
    ),
  } as Readonly<Record<string, string>>,
  /** Some CommonJS dependencies call require(); give the ESM bundle one. */
  banner:
    "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  handlerExport: 'handler',
} as const;

/** esbuild options equal to what NodejsFunction runs for HANDLER_BUNDLE, writing `outfile`. */
export function handlerBuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    target: HANDLER_BUNDLE.target,
    platform: HANDLER_BUNDLE.platform,
    format: HANDLER_BUNDLE.format,
    mainFields: [...HANDLER_BUNDLE.mainFields],
    minify: HANDLER_BUNDLE.minify,
    sourcemap: HANDLER_BUNDLE.sourcemap,
    external: [...HANDLER_BUNDLE.external],
    alias: { ...HANDLER_BUNDLE.alias },
    banner: { js: HANDLER_BUNDLE.banner },
    logLevel: 'error',
  };
}
