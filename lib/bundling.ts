/**
 * How the consumer function is bundled, in one place: the CDK construct maps it to NodejsFunction's
 * bundling options and the local demo to esbuild's, so `npm start` runs the very bundle `cdk deploy` ships.
 * Plain data: importing it loads neither aws-cdk-lib nor esbuild.
 */
import { resolve } from 'node:path';

const projectRoot = resolve(import.meta.dirname, '..');

export const ORDER_CONSUMER_ENTRY = resolve(projectRoot, 'lambdas', 'order-consumer', 'handler.ts');

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
  /** Some CommonJS dependencies call require(); give the ESM bundle one. */
  banner:
    "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  handlerExport: 'handler',
} as const;
