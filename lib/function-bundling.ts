/**
 * HANDLER_BUNDLE (lib/bundling.ts) as NodejsFunction's bundling options: the consumer and the outbox relay
 * are bundled with the same settings. Kept apart from bundling.ts, which must not load aws-cdk-lib.
 */
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { HANDLER_BUNDLE } from './bundling.js';

export function handlerBundling(): nodejs.BundlingOptions {
  return {
    target: HANDLER_BUNDLE.target,
    format: nodejs.OutputFormat.ESM,
    mainFields: [...HANDLER_BUNDLE.mainFields],
    minify: HANDLER_BUNDLE.minify,
    sourceMap: HANDLER_BUNDLE.sourcemap,
    banner: HANDLER_BUNDLE.banner,
    // Nothing external: the AWS SDK in the bundle is the version package-lock.json pins.
    externalModules: [...HANDLER_BUNDLE.external],
    esbuildArgs: Object.fromEntries(
      Object.entries(HANDLER_BUNDLE.alias).map(([module, replacement]) => [`--alias:${module}`, replacement]),
    ),
    forceDockerBundling: false,
  };
}
