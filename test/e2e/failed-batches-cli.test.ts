/**
 * `msk-inbox failed-batches`, the real bin spawned with no AWS credentials anywhere: what a person sees
 * on a mistake is one line on stderr with exit code 2, and a loopback S3 stand-in
 * (local/s3/folder-bucket-server.ts) needs no credentials. The commands' behaviour is tested in
 * test/integration/operator/failed-batches.test.ts.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../local/project-paths.js';
import { type FolderBucketServer, startFolderBucketServer } from '../../local/s3/folder-bucket-server.js';
import { fillOnFailureFolder } from '../integration/operator/fixtures/on-failure-folder.js';
import { createTestTables, type TestTables } from '../support/dynamodb.js';
import { expectOneLine, mskInbox } from '../support/msk-inbox-cli.js';

const BUCKET = 'failed-batches';

let tables: TestTables;
let folder: string;
let s3: FolderBucketServer;
let local: string[];

beforeAll(async () => {
  tables = await createTestTables();
  folder = await mkdtemp(join(tmpdir(), 'on-failure-'));
  await fillOnFailureFolder(folder);
  s3 = await startFolderBucketServer({ root: folder, bucket: BUCKET });
  local = [
    '--endpoint',
    inject('dynamoDbEndpoint'),
    '--table',
    tables.inboxTableName,
    '--consumer',
    'orders',
  ];
}, 60_000);

afterAll(async () => {
  await s3?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('msk-inbox failed-batches, spawned', () => {
  it('lists the loopback bucket without credentials, and answers --help on every command', async () => {
    const listed = await mskInbox([
      'failed-batches',
      'list',
      '--bucket',
      BUCKET,
      '--s3-endpoint',
      s3.endpoint,
      ...local,
    ]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/\n2 failed batches in s3:\/\/failed-batches\/\n$/);
    for (const command of [
      ['failed-batches'],
      ...['list', 'show', 'replay'].map((c) => ['failed-batches', c]),
    ]) {
      const help = await mskInbox([...command, '--help']);
      expect({ command, code: help.code }).toEqual({ command, code: 0 });
      expect(help.stdout).toMatch(/^Usage: msk-inbox failed-batches/);
    }
  });

  it('a bad id, a missing folder and no such bucket are one line each, exit 2', async () => {
    expectOneLine(
      await mskInbox([
        'failed-batches',
        'show',
        'nope1234',
        '--bucket',
        BUCKET,
        '--s3-endpoint',
        s3.endpoint,
        ...local,
      ]),
      /^msk-inbox: no failed batch nope1234 in s3:\/\/failed-batches\/: `msk-inbox failed-batches list` prints the ids$/,
    );
    expectOneLine(
      await mskInbox(['failed-batches', 'list', '--dir', 'no-such-folder', ...local]),
      /^msk-inbox: --dir no-such-folder: no such folder/,
    );
    expectOneLine(
      await mskInbox([
        'failed-batches',
        'replay',
        '--all',
        '--dry-run',
        '--bucket',
        'nope',
        '--s3-endpoint',
        s3.endpoint,
        ...local,
      ]),
      /^msk-inbox: no bucket nope at http:\/\/127\.0\.0\.1:\d+: check --bucket/,
    );
  });
});

describe('local/s3/main.ts', () => {
  it('serves the folder on the port --port names, and msk-inbox lists it there', async () => {
    const port = await freePort();
    const server = spawn(
      process.execPath,
      ['--import', 'tsx', 'local/s3/main.ts', '--dir', folder, '--port', String(port)],
      {
        cwd: PROJECT_ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      const [line] = (await once(createInterface({ input: server.stdout }), 'line')) as [string];
      expect(line).toMatch(
        new RegExp(`^serving .* as bucket failed-batches at http://127\\.0\\.0\\.1:${port} `),
      );
      const endpoint = `http://127.0.0.1:${port}`;
      const listed = await mskInbox([
        'failed-batches',
        'list',
        '--bucket',
        BUCKET,
        '--s3-endpoint',
        endpoint,
        ...local,
      ]);
      expect(listed.stdout).toMatch(/\n2 failed batches in s3:\/\/failed-batches\/\n$/);
    } finally {
      if (server.pid !== undefined && server.exitCode === null) {
        server.kill('SIGTERM');
        await once(server, 'exit');
      }
    }
  }, 60_000);
});

/** A port nothing listens on now: the system's pick for a server closed at once. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
