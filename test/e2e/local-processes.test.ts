/**
 * What a person sees of the local tools: one-line errors, a run on a machine without kcat, and nothing left
 * running however a run ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { dynamoDbLocalPidsOwnedBy, isAlive, pathWithout } from '../support/processes.js';

const children: ChildProcess[] = [];
const strayPids: number[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const pid of strayPids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

function startTs(file: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

async function finish(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

const DEMO = 'local/demo/main.ts';
const SMALL_RUN = ['--events', '200', '--accounts', '20', '--batching-window-ms', '50'];

describe('DynamoDB Local started by a process', () => {
  it('ends with its owner when the owner is killed with SIGKILL', async () => {
    const owner = startTs('test/e2e/fixtures/dynamodb-local-owner.ts', []);
    const [line] = (await once(
      createInterface({ input: owner.stdout as NodeJS.ReadableStream }),
      'line',
    )) as [string];
    const { jvmPid } = JSON.parse(line) as { jvmPid: number };
    strayPids.push(jvmPid);
    expect(isAlive(jvmPid)).toBe(true);

    owner.kill('SIGKILL');
    await once(owner, 'exit');

    await expect.poll(() => isAlive(jvmPid), { timeout: 10_000 }).toBe(false);
  });
});

describe('npm start', () => {
  it('ends quietly, leaving no DynamoDB Local behind, when its reader goes away (a broken pipe)', async () => {
    const demo = startTs(DEMO, ['--source', 'memory', ...SMALL_RUN]);
    const lines = createInterface({ input: demo.stdout as NodeJS.ReadableStream });
    await once(lines, 'line');
    let jvmPids: number[] = [];
    await expect
      .poll(
        () => {
          jvmPids = dynamoDbLocalPidsOwnedBy(demo.pid ?? -1);
          return jvmPids.length;
        },
        { timeout: 20_000 },
      )
      .toBe(1);
    strayPids.push(...jvmPids);

    lines.close();
    demo.stdout?.destroy();
    const [code] = (await once(demo, 'exit')) as [number | null];

    expect(code).toBe(141);
    await expect.poll(() => jvmPids.filter(isAlive), { timeout: 10_000 }).toEqual([]);
  }, 60_000);

  it('runs through the in-memory log, verified, and says how to get the broker when kcat is missing', async () => {
    const env = { ...process.env, PATH: pathWithout(['kcat']) };
    const run = await finish(
      startTs(DEMO, [...SMALL_RUN, '--dynamodb-endpoint', inject('dynamoDbEndpoint')], env),
    );

    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/\n {2}source +memory, 4 partitions \(kcat not found.*apt-get install kcat/);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^verified: /);
    expect(run.code).toBe(0);
  }, 120_000);

  it('refuses --source kafka without kcat in one line with the fix, exit code 2', async () => {
    const env = { ...process.env, PATH: pathWithout(['kcat']) };
    const run = await finish(startTs(DEMO, ['--source', 'kafka'], env));

    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^npm start: kcat is not installed .*apt-get install kcat.*\n$/);
    expect(run.stderr.split('\n')).toHaveLength(2);
  });

  it('says what to install, in one line, exit code 2, when there is no Java', async () => {
    const env = { ...process.env, PATH: pathWithout(['java']) };
    const run = await finish(startTs(DEMO, ['--source', 'memory'], env));

    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^npm start: java is not installed .*openjdk-17-jre-headless.*\n$/);
    expect(run.stderr.split('\n')).toHaveLength(2);
  });

  it('names a bad flag in one line, with a stack trace only under --verbose', async () => {
    const plain = await finish(startTs(DEMO, ['--events', 'many']));
    expect(plain.code).toBe(2);
    expect(plain.stderr).toBe(
      'npm start: --events many: expected an integer from 1 to 1000000 (npm start -- --help lists every flag)\n',
    );

    const verbose = await finish(startTs(DEMO, ['--events', 'many', '--verbose']));
    expect(verbose.code).toBe(2);
    expect(verbose.stderr).toMatch(/^DemoUsageError: --events many.*\n\s+at /);
  });
});
