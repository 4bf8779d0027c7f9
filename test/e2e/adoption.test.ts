/**
 * Adoption, as a team would do it: the packed package (npm pack) installed into a new project outside this
 * repository, a transactional, a side-effect, a Postgres and an emitting consumer of at most 15 lines, CDK
 * apps of at most 20 (one with the outbox and its relay) and the README's skip/reject example
 * (test/e2e/adoption/*.ts.txt, written there as .ts). The consumers are bundled with esbuild from that
 * project and run against DynamoDB Local (and PGlite); the apps are synthesized and their templates checked.
 *
 * The new project gets its dependencies without a network: the tarball is unpacked as
 * node_modules/msk-inbox and every other package is linked from this repository's node_modules, which
 * `npm ci` filled. So the package's `exports`, `files` and declared entry points are what is tested.
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Context } from 'aws-lambda';
import { build } from 'esbuild';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { INBOX_STATUS } from '../../lambdas/core/inbox-rows.js';
import type { KafkaBatchResponse } from '../../lambdas/core/kafka-event.js';
import { outboxEventId } from '../../lambdas/core/outbox-event-id.js';
import { migrate } from '../../lambdas/postgres/schema.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/dynamodb-local/client.js';
import { createOutboxTable } from '../../local/dynamodb-local/tables.js';
import { startPglite } from '../../local/postgres/pglite-server.js';
import { PROJECT_ROOT } from '../../local/project-paths.js';
import { bundledPackages, OPERATOR_CLIENTS } from '../support/bundle-inputs.js';
import { CDK_JSON_CONTEXT } from '../support/cdk-context.js';
import { lambdaContext, ManualClock } from '../support/clocks.js';
import { createTestTables, type TestTables } from '../support/dynamodb.js';
import { kafkaEvent } from '../support/kafka-events.js';
import { WITHOUT_CREDENTIALS } from '../support/msk-inbox-cli.js';

const run = promisify(execFile);
const FIXTURES = join(PROJECT_ROOT, 'test', 'e2e', 'adoption');
/** The new project's files, from the fixtures: consumers, then apps. */
const CONSUMERS = ['payments.ts', 'receipts.ts', 'order-status.ts', 'shipments.ts', 'ledger.ts', 'orders.ts'];
const APPS = ['app.ts', 'ledger-app.ts', 'orders-app.ts'];

let project: string;
let tables: TestTables;

type Handler = (event: unknown, context: Context) => Promise<KafkaBatchResponse>;

/** Bundles a handler of the new project, then loads it with its environment, as Lambda starts a cold container. */
async function loadHandler(file: string, env: Record<string, string>): Promise<Handler> {
  const outfile = join(project, 'bundles', file.replace(/\.ts$/, '.mjs'));
  await build({
    entryPoints: [join(project, file)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    absWorkingDir: project,
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'error',
  });
  // The function's environment while it starts and while it runs: the SDK reads credentials lazily.
  const withEnvironment = async <T>(work: () => Promise<T>): Promise<T> => {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      return await work();
    } finally {
      process.env = saved;
    }
  };
  const module = await withEnvironment(
    async () => (await import(pathToFileURL(outfile).href)) as { handler: Handler },
  );
  return (event, context) => withEnvironment(() => module.handler(event, context));
}

function localEnv(consumerName: string): Record<string, string> {
  return {
    INBOX_TABLE_NAME: tables.inboxTableName,
    CONSUMER_NAME: consumerName,
    AWS_ENDPOINT_URL_DYNAMODB: inject('dynamoDbEndpoint'),
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
}

const context = () => lambdaContext(new ManualClock(), 60_000);

type Template = { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
const syntheses = new Map<string, Promise<{ template: Template }>>();

/** Runs one of the new project's apps once, as `cdk synth` does, for the tests that read its output. */
function synthesized(app = 'app.ts', stack = 'Payments'): Promise<{ template: Template }> {
  const known = syntheses.get(app);
  if (known) return known;
  const synthesis = (async () => {
    await run(process.execPath, ['--import', 'tsx', app], {
      cwd: project,
      // cdk.json's context (a new app's feature flags), as `cdk synth` passes it to a team's app.
      env: {
        ...process.env,
        CDK_OUTDIR: join(project, `cdk.out.${stack}`),
        CDK_DISABLE_VERSION_CHECK: '1',
        CDK_CONTEXT_JSON: JSON.stringify(CDK_JSON_CONTEXT),
      },
    });
    const file = join(project, `cdk.out.${stack}`, `${stack}.template.json`);
    return { template: JSON.parse(readFileSync(file, 'utf8')) as Template };
  })();
  syntheses.set(app, synthesis);
  return synthesis;
}

beforeAll(async () => {
  tables = await createTestTables();
  project = mkdtempSync(join(tmpdir(), 'msk-inbox-adoption-'));
  const packed = join(project, 'packed');
  mkdirSync(packed);
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', packed], {
    cwd: PROJECT_ROOT,
  });
  const tarball = join(packed, stdout.trim().split('\n').pop() ?? '');
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, 'msk-inbox'), { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', join(modules, 'msk-inbox'), '--strip-components=1']);
  for (const entry of readdirSync(join(PROJECT_ROOT, 'node_modules'))) {
    if (entry !== 'msk-inbox') symlinkSync(join(PROJECT_ROOT, 'node_modules', entry), join(modules, entry));
  }
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'payments', type: 'module', private: true }),
  );
  // NodejsFunction takes the project's root from its lock file.
  writeFileSync(join(project, 'package-lock.json'), JSON.stringify({ name: 'payments', lockfileVersion: 3 }));
  for (const file of [...CONSUMERS, ...APPS]) {
    copyFileSync(join(FIXTURES, `${file}.txt`), join(project, file));
  }
}, 120_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('a team adopting the packed package in a project of its own', () => {
  it('writes its consumers in at most 15 lines and its apps in at most 20', () => {
    const lines = (file: string) => readFileSync(join(project, file), 'utf8').trimEnd().split('\n').length;
    expect(lines('payments.ts')).toBeLessThanOrEqual(15);
    expect(lines('receipts.ts')).toBeLessThanOrEqual(15);
    expect(lines('order-status.ts')).toBeLessThanOrEqual(20);
    expect(lines('ledger.ts')).toBeLessThanOrEqual(15);
    expect(lines('orders.ts')).toBeLessThanOrEqual(15);
    expect(lines('app.ts')).toBeLessThanOrEqual(20);
    expect(lines('ledger-app.ts')).toBeLessThanOrEqual(20);
    expect(lines('orders-app.ts')).toBeLessThanOrEqual(20);
  });

  it('applies a payment once, a redelivery as a duplicate, and quarantines an invalid value', async () => {
    const handler = await loadHandler('payments.ts', {
      ...localEnv('payments'),
      LEDGER_TABLE_NAME: tables.appTableName,
    });
    const event = kafkaEvent([
      { offset: 1, headers: { event_id: 'pay-1' }, value: { payment_id: 'p-1', cents: 500 } },
      { offset: 2, headers: { event_id: 'pay-2' }, value: { payment_id: 'p-2', cents: -3 } },
    ]);

    expect(await handler(event, context())).toEqual({ batchItemFailures: [] });
    expect(await handler(event, context())).toEqual({ batchItemFailures: [] });

    expect((await tables.get(tables.appTableName, 'payment#p-1'))?.cents).toBe(500);
    expect(await tables.get(tables.appTableName, 'payment#p-2')).toBeUndefined();
    const quarantined = (await tables.scan(tables.inboxTableName)).filter(
      (row) => row.status === INBOX_STATUS.quarantined && row.quarantine_consumer === 'payments',
    );
    expect(quarantined.map((row) => row.reason)).toEqual(['invalid-event']);
  });

  it('writes the latest order status with no inbox row, and acks a repeated or older version as a duplicate', async () => {
    const handler = await loadHandler('order-status.ts', {
      ...localEnv('order-status'),
      ORDERS_TABLE_NAME: tables.appTableName,
    });
    const status = (offset: number, version: number, value: string) => ({
      offset,
      headers: { event_id: `status-${version}` },
      value: { order_id: 'status-o-1', version, status: value },
    });

    expect(await handler(kafkaEvent([status(1, 2, 'SHIPPED')]), context())).toEqual({
      batchItemFailures: [],
    });
    const again = kafkaEvent([status(1, 2, 'SHIPPED'), status(2, 1, 'PLACED')]);
    expect(await handler(again, context())).toEqual({ batchItemFailures: [] });

    expect(await tables.get(tables.appTableName, 'order#status-o-1')).toMatchObject({
      version: 2,
      status: 'SHIPPED',
    });
    const rows = await tables.scan(tables.inboxTableName);
    expect(rows.filter((row) => String(row.pk).startsWith('order-status'))).toEqual([]);
  });

  it('emits a PaymentRequested once, into the outbox in the transaction of the order, and nothing on a redelivery', async () => {
    const outboxTableName = `outbox-${tables.inboxTableName.slice('inbox-'.length)}`;
    await createOutboxTable(tables.client, outboxTableName);
    const handler = await loadHandler('orders.ts', {
      ...localEnv('orders'),
      ORDERS_TABLE_NAME: tables.appTableName,
      OUTBOX_TABLE_NAME: outboxTableName,
    });
    const event = kafkaEvent([
      { offset: 1, headers: { event_id: 'order-1' }, value: { order_id: 'o-1', cents: 700 } },
    ]);

    expect(await handler(event, context())).toEqual({ batchItemFailures: [] });
    expect(await handler(event, context())).toEqual({ batchItemFailures: [] });

    expect((await tables.get(tables.appTableName, 'order#o-1'))?.cents).toBe(700);
    // One queue row for the consumer's topic and key, one event: its id the UUIDv5 the relay sends as event_id.
    const rows = await tables.scan(outboxTableName);
    expect(rows).toEqual([
      expect.objectContaining({
        pk: 'queue#orders#payments#o-1',
        change: 'appended',
        events: [
          expect.objectContaining({
            id: outboxEventId('orders', 'order-1', 0),
            value: JSON.stringify({ payment_id: 'o-1', cents: 700 }),
          }),
        ],
      }),
    ]);
  });

  it('debits an account once in Postgres, a redelivery as a duplicate, and quarantines an unknown account', async () => {
    const postgres = await startPglite();
    try {
      const setup = new pg.Client({ connectionString: postgres.url });
      await setup.connect();
      await migrate(setup);
      await setup.query(
        "CREATE TABLE accounts (id text PRIMARY KEY, balance bigint NOT NULL); INSERT INTO accounts VALUES ('a-1', 1000)",
      );
      await setup.end();
      const handler = await loadHandler('ledger.ts', {
        ...localEnv('ledger'),
        INBOX_TABLE_NAME: '',
        POSTGRES_AUTH: 'url',
        POSTGRES_URL: postgres.url,
        POSTGRES_IDLE_TIMEOUT_MS: '1',
      });
      const event = kafkaEvent([
        { offset: 1, headers: { event_id: 'debit-1' }, value: { account_id: 'a-1', cents: 300 } },
        { offset: 2, headers: { event_id: 'debit-2' }, value: { account_id: 'a-404', cents: 5 } },
      ]);

      expect(await handler(event, context())).toEqual({ batchItemFailures: [] });
      expect(await handler(event, context())).toEqual({ batchItemFailures: [] });

      const check = new pg.Client({ connectionString: postgres.url });
      await check.connect();
      try {
        const balance = await check.query("SELECT balance FROM accounts WHERE id = 'a-1'");
        expect(balance.rows).toEqual([{ balance: '700' }]);
        const quarantined = await check.query(
          "SELECT item FROM msk_inbox.quarantine WHERE consumer = 'ledger'",
        );
        expect(quarantined.rows.map((row) => JSON.parse(String(row.item)).reason)).toEqual([
          'unknown-account',
        ]);
      } finally {
        await check.end();
      }
    } finally {
      await postgres.stop();
    }
  }, 120_000);

  it("type-checks every file, the README's examples, against the packed package's declarations", async () => {
    // As a team's project sets TypeScript for an ES module package (README: NodeNext), strictly.
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: [...CONSUMERS, ...APPS],
      }),
    );
    const tsc = join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', project], { cwd: project }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, stdout: error.stdout ?? '' }),
    );
    expect(result).toEqual({ code: 0, stdout: '' });
  }, 120_000);

  it('lists that quarantined payment with the packed operator CLI, which runs the built dist/', async () => {
    const installed = join(project, 'node_modules', 'msk-inbox');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    const bin = join(installed, manifest.bin['msk-inbox'] ?? '');
    // Only the built CLI ships: the shim must not find TypeScript to run.
    expect(readdirSync(join(installed, 'bin'))).toEqual(['msk-inbox.mjs']);
    const { stdout } = await run(
      process.execPath,
      [bin, 'quarantine', 'list', '--json', '--endpoint', inject('dynamoDbEndpoint')],
      {
        cwd: project,
        // No credentials anywhere: the tool signs with the local pair the tables were made under.
        env: { ...WITHOUT_CREDENTIALS, CONSUMER_NAME: 'payments', INBOX_TABLE_NAME: tables.inboxTableName },
      },
    );
    const listed = JSON.parse(stdout) as { rows: { id: string; reason: string }[] };
    expect(listed.rows).toEqual([expect.objectContaining({ id: 'orders-0@2', reason: 'invalid-event' })]);
  });

  it('calls the receipts service once per event, with the event id as its idempotency key', async () => {
    const calls: string[] = [];
    const server: Server = createServer((request, response) => {
      calls.push(String(request.headers['idempotency-key']));
      request.resume();
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const handler = await loadHandler('receipts.ts', {
        ...localEnv('receipts'),
        RECEIPTS_URL: `http://127.0.0.1:${port}/receipts`,
      });
      const event = kafkaEvent([{ offset: 1, headers: { event_id: 'rcpt-1' }, value: { order: 'o-1' } }]);

      expect(await handler(event, context())).toEqual({ batchItemFailures: [] });
      expect(await handler(event, context())).toEqual({ batchItemFailures: [] });
    } finally {
      server.close();
    }
    expect(calls).toEqual(['rcpt-1']);
  });

  it('synthesizes an app with partial batch responses in provisioned mode, an inbox with TTL, and alarms', async () => {
    const { template } = await synthesized();
    const resources = Object.values(template.Resources);
    const ofType = (type: string) => resources.filter((resource) => resource.Type === type);

    expect(ofType('AWS::Lambda::EventSourceMapping')).toEqual([
      expect.objectContaining({
        Properties: expect.objectContaining({
          FunctionResponseTypes: ['ReportBatchItemFailures'],
          ProvisionedPollerConfig: expect.objectContaining({ MinimumPollers: 1 }),
        }),
      }),
    ]);
    expect(
      ofType('AWS::DynamoDB::Table').map((table) => table.Properties.TimeToLiveSpecification),
    ).toContainEqual({
      AttributeName: 'expires_at',
      Enabled: true,
    });
    // ConsumerMonitoring's five alarms of the consumer and one throttle alarm per table the app passed
    // (inbox, ledger), by logical id without CDK's 8-character hash: Monitoring/<alarm id>.
    const alarms = Object.entries(template.Resources)
      .filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm')
      .map(([logicalId]) => logicalId.replace(/[0-9A-F]{8}$/, ''));
    expect(alarms.sort()).toEqual([
      'MonitoringDurationNearTimeout',
      'MonitoringDynamoDbThrottlesinbox',
      'MonitoringDynamoDbThrottlesledger',
      'MonitoringFunctionErrors',
      'MonitoringOffsetLagGrowing',
      'MonitoringQuarantined',
      'MonitoringRecordsDropped',
    ]);
    expect(ofType('AWS::CloudWatch::Dashboard')).toHaveLength(1);
    expect(ofType('AWS::IAM::ManagedPolicy')).toHaveLength(1);
  }, 120_000);

  it("synthesizes the Postgres consumer's app: in the VPC, rds-db:connect for its user, the POSTGRES_* settings, the expired-rows schedule, no DynamoDB", async () => {
    const { template } = await synthesized('ledger-app.ts', 'Ledger');
    const resources = Object.values(template.Resources);
    const consumer = resources.find(
      (resource) =>
        resource.Type === 'AWS::Lambda::Function' &&
        (JSON.stringify(resource.Properties.Environment) ?? '').includes('"CONSUMER_NAME":"ledger"'),
    );
    if (!consumer) throw new Error('the template has no function with CONSUMER_NAME ledger');
    expect(consumer.Properties.VpcConfig).toEqual(expect.objectContaining({ SubnetIds: expect.any(Array) }));
    const variables = (consumer.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables).toEqual(
      expect.objectContaining({
        POSTGRES_HOST: 'ledger.proxy-abc.us-east-1.rds.amazonaws.com',
        POSTGRES_DATABASE: 'ledger',
        POSTGRES_USER: 'ledger_consumer',
        POSTGRES_AUTH: 'iam',
      }),
    );
    expect(variables).not.toHaveProperty('INBOX_TABLE_NAME');
    const policies = JSON.stringify(resources.filter((resource) => resource.Type === 'AWS::IAM::Policy'));
    expect(policies).toContain('rds-db:connect');
    expect(policies).toContain('dbuser:prx-0123456789abcdef0/ledger_consumer');
    expect(policies).not.toContain('dynamodb:');
    const rules = resources.filter((resource) => resource.Type === 'AWS::Events::Rule');
    expect(JSON.stringify(rules)).toContain('delete-expired-rows');
    expect(resources.filter((resource) => resource.Type === 'AWS::DynamoDB::Table')).toEqual([]);
  }, 120_000);

  it('deploys a bundle of the packed engine without the operator tool, its AWS clients or the constructs', async () => {
    const { template } = await synthesized();
    const consumer = Object.values(template.Resources).find(
      (resource) =>
        resource.Type === 'AWS::Lambda::Function' &&
        JSON.stringify(resource.Properties.Environment).includes('"CONSUMER_NAME":"payments"'),
    );
    if (!consumer) throw new Error('the template has no function with CONSUMER_NAME payments');
    const { S3Key } = consumer.Properties.Code as { S3Key: string };
    // NodejsFunction's asset, as cdk deploy uploads it; its source map names every file bundled.
    const asset = join(project, 'cdk.out.Payments', `asset.${S3Key.replace(/\.zip$/, '')}`);
    const { sources } = JSON.parse(readFileSync(join(asset, 'index.mjs.map'), 'utf8')) as {
      sources: string[];
    };
    const packages = bundledPackages(sources);

    expect(packages).toEqual(expect.arrayContaining(['msk-inbox', '@aws-sdk/client-dynamodb']));
    for (const client of OPERATOR_CLIENTS) expect(packages).not.toContain(client);
    expect(packages).not.toContain('aws-cdk-lib');
    const packed = sources.filter((source) => source.includes('node_modules/msk-inbox/'));
    expect(packed.some((source) => source.includes('/dist/lambdas/core/'))).toBe(true);
    expect(packed.filter((source) => /\/dist\/(operator|lib|bin)\//.test(source))).toEqual([]);
  }, 120_000);

  it("synthesizes the emitting consumer's app: the outbox on the consumer, a relay on its appends that writes only payments, its alarms", async () => {
    const { template } = await synthesized('orders-app.ts', 'Orders');
    const entries = Object.entries(template.Resources);
    const resources = Object.values(template.Resources);
    const logicalId = (type: string, prefix: string): string => {
      const found = entries.filter(([id, resource]) => resource.Type === type && id.startsWith(prefix));
      if (found.length !== 1) throw new Error(`${found.length} ${type} named ${prefix}*`);
      return found[0]?.[0] ?? '';
    };
    const outbox = logicalId('AWS::DynamoDB::Table', 'OutboxTable');
    const functionWith = (text: string) => {
      const found = resources.find(
        (resource) =>
          resource.Type === 'AWS::Lambda::Function' &&
          (JSON.stringify(resource.Properties.Environment) ?? '').includes(text),
      );
      if (!found) throw new Error(`the template has no function with ${text}`);
      return found;
    };
    const consumer = functionWith('"CONSUMER_NAME":"orders"');
    const relay = functionWith('"POWERTOOLS_SERVICE_NAME":"outbox-relay"');
    type Statement = { Action: string | string[]; Resource: unknown; Effect: string };
    /** The statements of every inline policy on a function's role. */
    const statementsOf = (fn: (typeof resources)[number]): Statement[] => {
      const role = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      return resources
        .filter(
          (resource) =>
            resource.Type === 'AWS::IAM::Policy' &&
            JSON.stringify(resource.Properties.Roles).includes(`"Ref":"${role}"`),
        )
        .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
    };
    const actions = (statement: Statement) => [statement.Action].flat();

    // The consumer appends in its inbox transaction: the table's name, and UpdateItem on it.
    const variables = (consumer.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.OUTBOX_TABLE_NAME).toEqual({ Ref: outbox });
    expect(statementsOf(consumer)).toContainEqual(
      expect.objectContaining({
        Action: 'dynamodb:UpdateItem',
        Resource: { 'Fn::GetAtt': [outbox, 'Arn'] },
        Effect: 'Allow',
      }),
    );

    // The relay is invoked by the outbox's stream for the consumers' appends only, and reports failed records.
    expect(
      resources.filter((resource) => resource.Type === 'AWS::Lambda::EventSourceMapping'),
    ).toContainEqual(
      expect.objectContaining({
        Properties: expect.objectContaining({
          EventSourceArn: { 'Fn::GetAtt': [outbox, 'StreamArn'] },
          FunctionName: { Ref: logicalId('AWS::Lambda::Function', 'RelayFunction') },
          FilterCriteria: {
            Filters: [{ Pattern: '{"dynamodb":{"NewImage":{"change":{"S":["appended"]}}}}' }],
          },
          FunctionResponseTypes: ['ReportBatchItemFailures'],
        }),
      }),
    );

    // On Kafka, the relay may connect to the cluster and write the payments topic, nothing else.
    const cluster =
      'arn:aws:kafka:us-east-1:123456789012:cluster/demo/751d2973-a626-431c-9d4e-d7975eb44dd7-2';
    const kafka = statementsOf(relay).filter((statement) =>
      actions(statement).some((action) => action.startsWith('kafka-cluster:')),
    );
    expect(kafka.map((statement) => ({ actions: actions(statement), resource: statement.Resource }))).toEqual(
      [
        { actions: ['kafka-cluster:Connect'], resource: cluster },
        {
          actions: ['kafka-cluster:DescribeTopic', 'kafka-cluster:WriteData'],
          resource: cluster.replace(':cluster/', ':topic/').concat('/payments'),
        },
      ],
    );
    expect(statementsOf(relay).flatMap(actions)).not.toContain('kafka-cluster:*');

    // The relay's bundle: the package's relay and its Kafka client, none of the operator tool or constructs.
    const { S3Key } = relay.Properties.Code as { S3Key: string };
    const asset = join(project, 'cdk.out.Orders', `asset.${S3Key.replace(/\.zip$/, '')}`);
    const { sources } = JSON.parse(readFileSync(join(asset, 'index.mjs.map'), 'utf8')) as {
      sources: string[];
    };
    const packages = bundledPackages(sources);
    expect(packages).toEqual(expect.arrayContaining(['msk-inbox', 'kafkajs', '@aws-sdk/client-dynamodb']));
    for (const client of OPERATOR_CLIENTS) expect(packages).not.toContain(client);
    expect(packages).not.toContain('aws-cdk-lib');
    const packed = sources.filter((source) => source.includes('node_modules/msk-inbox/'));
    expect(packed.some((source) => source.includes('/dist/lambdas/outbox-relay/'))).toBe(true);
    expect(packed.filter((source) => /\/dist\/(operator|lib|bin)\//.test(source))).toEqual([]);

    // RelayMonitoring's six alarms, notifying the consumer's alarm topic (the stack's only one).
    const alarms = entries
      .filter(
        ([id, resource]) => resource.Type === 'AWS::CloudWatch::Alarm' && id.startsWith('RelayMonitoring'),
      )
      .map(([id]) => id.replace(/[0-9A-F]{8}$/, ''));
    expect(alarms.sort()).toEqual([
      'RelayMonitoringRelayFailedBatches',
      'RelayMonitoringRelayFunctionErrors',
      'RelayMonitoringRelayIteratorAge',
      'RelayMonitoringRelayPendingAge',
      'RelayMonitoringRelayPublishFailures',
      'RelayMonitoringRelayQuarantined',
    ]);
    expect(resources.filter((resource) => resource.Type === 'AWS::SNS::Topic')).toHaveLength(1);
  }, 120_000);
});
