/**
 * What a consumer's Lambda bundle is made of, built as CDK builds it (lib/bundling.ts). The operator tool
 * (operator/) ships in the same package with AWS clients of its own (Lambda, S3, CloudFormation): a
 * handler must reach none of them, or every cold start pays for a CLI it never runs. Its entries
 * (bin/msk-inbox.ts) import operator/, and operator/ imports the engine's row and record code, never
 * the other way round; this test keeps it so. test/e2e/adoption.test.ts checks the same of the bundle
 * CDK makes from the packed package.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { handlerBuildOptions } from '../../lib/bundling.js';
import { PROJECT_ROOT } from '../../local/project-paths.js';
import { ORDER_CONSUMER_ENTRY } from '../../sample/app/order-consumer-entry.js';
import { bundledPackages, OPERATOR_CLIENTS } from '../support/bundle-inputs.js';

describe("the sample consumer's Lambda bundle", () => {
  it("carries the inbox's DynamoDB client and nothing of the operator tool, the constructs, other stores or Powertools", async () => {
    const { metafile } = await build({
      ...handlerBuildOptions(
        ORDER_CONSUMER_ENTRY,
        join(PROJECT_ROOT, '.cache', 'bundle-inputs', 'index.mjs'),
      ),
      absWorkingDir: PROJECT_ROOT,
      // Only the metafile is read: nothing is written.
      write: false,
      metafile: true,
    });
    const inputs = Object.keys(metafile.inputs);
    const packages = bundledPackages(inputs);

    // The one client the engine uses: were it missing, the checks below would prove nothing.
    expect(packages).toContain('@aws-sdk/client-dynamodb');
    expect(inputs).toContain('lambdas/core/create-inbox-consumer.ts');
    for (const client of OPERATOR_CLIENTS) expect(packages).not.toContain(client);
    expect(packages).not.toContain('aws-cdk-lib');
    // The other stores' clients come with their entries (msk-inbox/postgres, msk-inbox/redis) only.
    expect(packages).not.toContain('pg');
    expect(packages).not.toContain('ioredis');
    // Logs and metrics are lambdas/core/telemetry's: Powertools' come only with a logger or metrics passed.
    expect(packages.filter((name) => name.startsWith('@aws-lambda-powertools/'))).toEqual([]);
    // Nor middy, whose streaming support imports Node's web streams (node:stream/web) at every cold start.
    expect(packages).not.toContain('@middy/core');
    expect(inputs.filter((input) => /^(operator|lib|bin)\//.test(input))).toEqual([]);
  });
});
