/**
 * The outbox relay's Lambda bundle, built as the consumer's is (lib/bundling.ts handlerBuildOptions), from
 * the entry the relay's construct bundles: it builds, carries kafkajs, the SigV4 signer and the Lambda
 * credential chain (the SDK's default Node.js chain aliased away), and nothing of the operator tool or the
 * constructs.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { handlerBuildOptions } from '../../lib/bundling.js';
import { PROJECT_ROOT } from '../../local/project-paths.js';
import { bundledPackages, OPERATOR_CLIENTS } from '../support/bundle-inputs.js';

const RELAY_ENTRY = join(PROJECT_ROOT, 'lambdas', 'outbox-relay', 'handler.ts');
const POSTGRES_RELAY_ENTRY = join(PROJECT_ROOT, 'lambdas', 'postgres', 'outbox', 'relay-handler.ts');

describe("the outbox relays' Lambda bundles", () => {
  it('builds with the consumer bundle settings, with Kafka and DynamoDB and none of the operator tool', async () => {
    const { metafile, outputFiles, errors } = await build({
      ...handlerBuildOptions(RELAY_ENTRY, join(PROJECT_ROOT, '.cache', 'relay-bundle', 'index.mjs')),
      absWorkingDir: PROJECT_ROOT,
      write: false,
      metafile: true,
    });
    expect(errors).toEqual([]);
    const inputs = Object.keys(metafile.inputs);
    const packages = bundledPackages(inputs);

    expect(inputs).toContain('lambdas/outbox-relay/handler.ts');
    expect(inputs).toContain('lambdas/core/lambda-credential-provider.ts');
    for (const needed of ['kafkajs', '@smithy/signature-v4', '@aws-sdk/client-dynamodb']) {
      expect(packages).toContain(needed);
    }
    for (const unwanted of [
      ...OPERATOR_CLIENTS,
      'aws-cdk-lib',
      '@aws-sdk/credential-provider-node',
      '@aws-sdk/client-sts',
    ]) {
      expect(packages).not.toContain(unwanted);
    }
    expect(inputs.filter((input) => /^(operator|lib|bin|local)\//.test(input))).toEqual([]);
    const bundle = outputFiles.find((file) => file.path.endsWith('index.mjs'));
    // Printed for the record: what a cold start loads.
    console.info(
      `outbox relay bundle: ${Math.round((bundle?.contents.byteLength ?? 0) / 1024)} KiB minified`,
    );
    expect(bundle?.contents.byteLength).toBeGreaterThan(0);
  });

  it('the Postgres relay builds the same way, with Kafka and pg and none of DynamoDB, the operator tool or the constructs', async () => {
    const { metafile, outputFiles, errors } = await build({
      ...handlerBuildOptions(
        POSTGRES_RELAY_ENTRY,
        join(PROJECT_ROOT, '.cache', 'postgres-relay-bundle', 'index.mjs'),
      ),
      absWorkingDir: PROJECT_ROOT,
      write: false,
      metafile: true,
    });
    expect(errors).toEqual([]);
    const inputs = Object.keys(metafile.inputs);
    const packages = bundledPackages(inputs);

    expect(inputs).toContain('lambdas/postgres/outbox/relay-handler.ts');
    for (const needed of ['kafkajs', '@smithy/signature-v4', 'pg', '@aws-sdk/rds-signer']) {
      expect(packages).toContain(needed);
    }
    for (const unwanted of [
      ...OPERATOR_CLIENTS,
      'aws-cdk-lib',
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/credential-provider-node',
    ]) {
      expect(packages).not.toContain(unwanted);
    }
    expect(inputs.filter((input) => /^(operator|lib|bin|local)\//.test(input))).toEqual([]);
    const bundle = outputFiles.find((file) => file.path.endsWith('index.mjs'));
    console.info(
      `Postgres outbox relay bundle: ${Math.round((bundle?.contents.byteLength ?? 0) / 1024)} KiB minified`,
    );
    expect(bundle?.contents.byteLength).toBeGreaterThan(0);
  });
});
