import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { build } from 'esbuild';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { KafkaBatchResponse } from '../../../lambdas/core/kafka-event.js';
import { defaultProvider } from '../../../lambdas/core/lambda-credential-provider.js';
import { handlerBuildOptions } from '../../../lib/bundling.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../local/dynamodb-local/client.js';
import { ORDER_CONSUMER_ENTRY } from '../../../sample/app/order-consumer-entry.js';
import { lambdaContext, ManualClock } from '../../support/clocks.js';
import { createTestTables } from '../../support/dynamodb.js';
import { kafkaEvent, orderRecord } from '../../support/kafka-events.js';

const CREDENTIAL_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
];

describe('the Lambda credential chain', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });
  const withOnly = (variables: Record<string, string>) => {
    for (const name of CREDENTIAL_VARIABLES) delete process.env[name];
    Object.assign(process.env, variables);
  };

  it('returns the execution role credentials Lambda puts in the environment', async () => {
    withOnly({
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'session',
    });

    await expect(defaultProvider()()).resolves.toMatchObject({
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'session',
    });
  });

  it('reads them from the container endpoint, with its token, when the environment has none', async () => {
    let seen: IncomingHttpHeaders | undefined;
    const server = createServer((request, response) => {
      seen = request.headers;
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          AccessKeyId: 'AKIDCONTAINER',
          SecretAccessKey: 'container-secret',
          Token: 'container-session',
          Expiration: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      withOnly({
        AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${port}/credentials`,
        AWS_CONTAINER_AUTHORIZATION_TOKEN: 'container-token',
      });

      await expect(defaultProvider()()).resolves.toMatchObject({
        accessKeyId: 'AKIDCONTAINER',
        sessionToken: 'container-session',
      });
      expect(seen?.authorization).toBe('container-token');
    } finally {
      server.close();
    }
  });

  it('says which variables it looked for when there are no credentials at all', async () => {
    withOnly({});

    await expect(defaultProvider()()).rejects.toThrow(
      /AWS_ACCESS_KEY_ID\/AWS_SECRET_ACCESS_KEY nor AWS_CONTAINER_CREDENTIALS_FULL_URI/,
    );
  });

  it('lets the deployed bundle, built with the credential alias, sign requests DynamoDB accepts', async () => {
    const tables = await createTestTables();
    const bundleFile = join(import.meta.dirname, '..', '..', '..', '.cache', 'test-bundle', 'index.mjs');
    const { metafile } = await build({
      ...handlerBuildOptions(ORDER_CONSUMER_ENTRY, bundleFile),
      metafile: true,
    });
    const bundledInputs = Object.keys(metafile.inputs);
    expect(bundledInputs.some((input) => input.includes('credential-provider-node'))).toBe(false);
    expect(bundledInputs.some((input) => input.endsWith('lambda-credential-provider.ts'))).toBe(true);
    withOnly({
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    });
    Object.assign(process.env, {
      INBOX_TABLE_NAME: tables.inboxTableName,
      APP_TABLE_NAME: tables.appTableName,
      CONSUMER_NAME: 'aliased-bundle',
      AWS_ENDPOINT_URL_DYNAMODB: inject('dynamoDbEndpoint'),
      AWS_REGION: LOCAL_REGION,
    });
    const { handler } = (await import(pathToFileURL(bundleFile).href)) as {
      handler: (event: unknown, context: Context) => Promise<KafkaBatchResponse>;
    };

    const response = await handler(
      kafkaEvent([orderRecord(1, { eventId: 'aliased-1', accountId: 'aliased' })]),
      lambdaContext(new ManualClock(Date.now())),
    );

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await tables.get(tables.inboxTableName, 'aliased-bundle#aliased-1')).toMatchObject({
      status: 'COMPLETED',
    });
  });
});
