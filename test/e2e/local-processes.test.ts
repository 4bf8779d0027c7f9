/**
 * What a person sees of the local tools: one-line errors (a missing kcat, Java or redis-server), a run on
 * a machine without kcat, and nothing left running however a run ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../local/project-paths.js';
import { dynamoDbLocalPidsOwnedBy, isAlive, pathWithOnly } from '../support/processes.js';

const children: ChildProcess[] = [];
const strayPids: number[] = [];
const paths: ReturnType<typeof pathWithOnly>[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const pid of strayPids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const path of paths) path.remove();
});

/** The environment of a machine whose PATH has only these programs. */
function machineWith(programs: readonly string[]): NodeJS.ProcessEnv {
  const only = pathWithOnly(programs);
  paths.push(only);
  return { ...process.env, PATH: only.path };
}

function startTs(
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  detached = false,
): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  children.push(child);
  return child;
}

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

async function finish(child: ChildProcess): Promise<Finished> {
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

/** Exit code 2, nothing on stdout, and exactly one line on stderr, matching `line`. */
function expectOneLineError(run: Finished, line: RegExp): void {
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.split('\n')).toEqual([expect.stringMatching(line), '']);
}

async function firstLine(child: ChildProcess): Promise<string> {
  const [line] = (await once(createInterface({ input: child.stdout as NodeJS.ReadableStream }), 'line')) as [
    string,
  ];
  return line;
}

/** The demo's DynamoDB Local JVM, once it runs. */
async function jvmOf(demo: ChildProcess): Promise<number> {
  let pids: number[] = [];
  await expect
    .poll(
      () => {
        pids = dynamoDbLocalPidsOwnedBy(demo.pid ?? -1);
        return pids.length;
      },
      { timeout: 20_000 },
    )
    .toBe(1);
  strayPids.push(...pids);
  return pids[0] as number;
}

const DEMO = 'local/demo/main.ts';
const SMALL_RUN = ['--events', '200', '--accounts', '20', '--batching-window-ms', '50'];

describe('DynamoDB Local started by a process', () => {
  it('ends with its owner when the owner is killed with SIGKILL', async () => {
    const owner = startTs('test/e2e/fixtures/dynamodb-local-owner.ts', []);
    const { jvmPid } = JSON.parse(await firstLine(owner)) as { jvmPid: number };
    strayPids.push(jvmPid);
    expect(isAlive(jvmPid)).toBe(true);

    owner.kill('SIGKILL');
    await once(owner, 'exit');

    await expect.poll(() => isAlive(jvmPid), { timeout: 10_000 }).toBe(false);
  });

  it("ends with its owner when the owner's whole process group is killed with SIGKILL", async () => {
    const owner = startTs('test/e2e/fixtures/dynamodb-local-owner.ts', [], process.env, true);
    const { jvmPid } = JSON.parse(await firstLine(owner)) as { jvmPid: number };
    strayPids.push(jvmPid);

    process.kill(-(owner.pid as number), 'SIGKILL');
    await once(owner, 'exit');

    await expect.poll(() => isAlive(jvmPid), { timeout: 10_000 }).toBe(false);
  });
});

describe('npm start', () => {
  it('ends quietly, leaving no DynamoDB Local behind, when its reader goes away (a broken pipe)', async () => {
    const demo = startTs(DEMO, ['--source', 'memory', ...SMALL_RUN]);
    let stderr = '';
    demo.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await firstLine(demo);
    const jvm = await jvmOf(demo);

    demo.stdout?.destroy();
    const [code] = (await once(demo, 'exit')) as [number | null];

    expect(code).toBe(141);
    expect(stderr).toBe('');
    await expect.poll(() => isAlive(jvm), { timeout: 10_000 }).toBe(false);
  }, 60_000);

  it('leaves no DynamoDB Local behind when stopped with SIGTERM', async () => {
    const demo = startTs(DEMO, ['--source', 'memory', ...SMALL_RUN]);
    await firstLine(demo);
    const jvm = await jvmOf(demo);

    demo.kill('SIGTERM');
    await once(demo, 'exit');

    await expect.poll(() => isAlive(jvm), { timeout: 10_000 }).toBe(false);
  }, 60_000);

  it('runs through the in-memory log, verified, and says how to get the broker when kcat is missing', async () => {
    const env = machineWith(['node', 'java']);
    const run = await finish(
      startTs(DEMO, [...SMALL_RUN, '--dynamodb-endpoint', inject('dynamoDbEndpoint')], env),
    );

    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/\n {2}source +memory, 4 partitions \(kcat not found.*apt-get install kcat/);
    expect(run.stdout).toContain('function log  .local-run/logs/order-consumer.log');
    expect(run.stdout).not.toContain(PROJECT_ROOT);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^verified: /);
    expect(run.code).toBe(0);
  }, 120_000);

  it('refuses --source kafka without kcat in one line with the fix, exit code 2', async () => {
    const run = await finish(startTs(DEMO, ['--source', 'kafka'], machineWith(['node', 'java'])));
    expectOneLineError(run, /^npm start: kcat is not installed .*apt-get install kcat/);
  });

  it('says how to get redis-server, in one line, exit code 2, when --store redis finds none', async () => {
    const run = await finish(startTs(DEMO, ['--store', 'redis'], machineWith(['node', 'java'])));
    expectOneLineError(run, /^npm start: redis-server is not installed: apt-get install -y redis-server$/);
  });

  it('says what to install, in one line, exit code 2, when there is no Java', async () => {
    const run = await finish(startTs(DEMO, ['--source', 'memory'], machineWith(['node'])));
    expectOneLineError(run, /^npm start: java is not installed .*openjdk-17-jre-headless/);
  });

  it('names an address that does not answer in one line, exit code 2, before starting anything', async () => {
    const brokers = await finish(startTs(DEMO, ['--brokers', '127.0.0.1:1']));
    expectOneLineError(brokers, /^npm start: no broker accepts connections at --brokers 127\.0\.0\.1:1: /);
    const endpoint = await finish(startTs(DEMO, ['--dynamodb-endpoint', 'http://127.0.0.1:1']));
    expectOneLineError(
      endpoint,
      /^npm start: nothing answers at --dynamodb-endpoint http:\/\/127\.0\.0\.1:1: /,
    );
  });

  it('names a bad flag in one line, with a stack trace only under --verbose', async () => {
    const plain = await finish(startTs(DEMO, ['--events', 'many']));
    expectOneLineError(
      plain,
      /^npm start: --events many: expected an integer from 1 to 1000000 \(npm start -- --help lists every flag\)$/,
    );

    const verbose = await finish(startTs(DEMO, ['--events', 'many', '--verbose']));
    expect(verbose.code).toBe(2);
    expect(verbose.stderr).toMatch(/^DemoUsageError: --events many.*\n\s+at /);
  });
});

describe('npm run soak and npm run bench', () => {
  it('name a bad flag in one line, exit code 2', async () => {
    expectOneLineError(
      await finish(startTs('local/soak/main.ts', ['--schedules', '0'])),
      /^npm run soak: --schedules must be a whole number from 1 up, got 0$/,
    );
    expectOneLineError(
      await finish(startTs('bench/main.ts', ['--nope'])),
      /^npm run bench: Unknown option '--nope' \(usage: npm run bench -- /,
    );
  });
});
