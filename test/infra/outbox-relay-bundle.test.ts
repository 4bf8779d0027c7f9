/**
 * The outbox relays' Lambda bundles, built as the consumer's is (lib/bundling.ts handlerBuildOptions), from
 * the entries their constructs bundle: each builds, carries kafkajs, the SigV4 signer and its store's
 * client (the SDK's default Node.js credential chain aliased away), and nothing of the operator tool, the
 * constructs or the other store.
 */
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { handlerBuildOptions, POSTGRES_RELAY_ENTRY, RELAY_ENTRY } from '../../lib/bundling.js';
import { PROJECT_ROOT } from '../../local/project-paths.js';
import { bundledPackages, OPERATOR_CLIENTS } from '../support/bundle-inputs.js';

const RELAYS = [
  {
    name: 'outbox relay',
    entry: RELAY_ENTRY,
    needed: ['kafkajs', '@smithy/signature-v4', '@aws-sdk/client-dynamodb'],
    alsoInputs: ['lambdas/core/lambda-credential-provider.ts'],
    unwanted: ['pg'],
  },
  {
    name: 'Postgres outbox relay',
    entry: POSTGRES_RELAY_ENTRY,
    needed: ['kafkajs', '@smithy/signature-v4', 'pg', '@aws-sdk/rds-signer'],
    alsoInputs: [],
    unwanted: ['@aws-sdk/client-dynamodb'],
  },
] as const;

describe("the outbox relays' Lambda bundles", () => {
  it.each(RELAYS)(
    'the $name builds with the consumer bundle settings, with what it needs and none of the operator tool',
    async (relay) => {
      const { metafile, outputFiles, errors } = await build({
        ...handlerBuildOptions(
          relay.entry,
          join(PROJECT_ROOT, '.cache', 'relay-bundles', relay.name.replaceAll(' ', '-'), 'index.mjs'),
        ),
        absWorkingDir: PROJECT_ROOT,
        write: false,
        metafile: true,
      });
      expect(errors).toEqual([]);
      const inputs = Object.keys(metafile.inputs);
      const packages = bundledPackages(inputs);

      for (const input of [relative(PROJECT_ROOT, relay.entry), ...relay.alsoInputs])
        expect(inputs).toContain(input);
      for (const needed of relay.needed) expect(packages).toContain(needed);
      for (const unwanted of [
        ...OPERATOR_CLIENTS,
        ...relay.unwanted,
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
        `${relay.name} bundle: ${Math.round((bundle?.contents.byteLength ?? 0) / 1024)} KiB minified`,
      );
      expect(bundle?.contents.byteLength).toBeGreaterThan(0);
    },
  );
});
