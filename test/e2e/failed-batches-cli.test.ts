/**
 * `msk-inbox failed-batches`, the real bin spawned with no AWS credentials anywhere: what a person sees
 * on a mistake is one line on stderr with exit code 2, and a loopback S3 stand-in
 * (local/s3/folder-bucket-server.ts) needs no credentials. The commands' behaviour is tested in
 * test/integration/operator/failed-batches.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../local/project-paths.js';
import { type FolderBucketServer, startFolderBucketServer } from '../../local/s3/folder-bucket-server.js';
import { fillOnFailureFolder } from '../integration/operator/fixtures/on-failure-folder.js';
import { createTestTables, type TestTables } from '../support/dynamodb.js';

const BIN = join(PROJECT_ROOT, 'bin', 'msk-inbox.mjs');
const BUCKET = 'failed-batches';

/** No credentials anywhere the SDK looks: not in the variables, not in files, not from a metadata service. */
const WITHOUT_CREDENTIALS: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: '/nonexistent',
  AWS_CONFIG_FILE: '/nonexistent/config',
  AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
  AWS_EC2_METADATA_DISABLED: 'true',
};

interface Spawned {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function mskInbox(args: readonly string[]): Promise<Spawned> {
  try {
    const { stdout, stderr } = await promisify(execFile)('node', [BIN, ...args], {
      env: WITHOUT_CREDENTIALS,
      cwd: PROJECT_ROOT,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function expectOneLine(result: Spawned, line: RegExp): void {
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr.trimEnd()).toMatch(line);
  expect(result.code).toBe(2);
}

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
