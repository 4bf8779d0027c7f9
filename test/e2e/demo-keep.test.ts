/**
 * `npm start -- --keep`, spawned, then the operator CLI on what it left: the "done when" (issue 15):
 * the kept DynamoDB Local holds the demo's poison records, `msk-inbox quarantine list` lists them, a replay
 * through the kept Invoke API (the demo's bundle, `--function`) and one through the demo's own handler
 * quarantine them again, and the printed `kill` line stops both processes.
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../local/project-paths.js';
import { isAlive } from '../support/processes.js';

const run = promisify(execFile);
const BIN = join(PROJECT_ROOT, 'bin', 'msk-inbox.mjs');
let keptPids: number[] = [];

/** Whether the process is gone (or a zombie: it was detached, and nothing here is its parent to reap it). */
async function endsWithin(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const ended = () => {
    if (!isAlive(pid)) return true;
    try {
      return / Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\)/, ''));
    } catch {
      return true;
    }
  };
  while (!ended()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

afterAll(() => {
  for (const pid of keptPids) if (isAlive(pid)) process.kill(pid);
});

/** Runs the bin; a non-zero exit gives its code and output instead of throwing. */
async function mskInbox(args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  return run('node', [BIN, ...args], { cwd: PROJECT_ROOT, env }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
}

const outcomesOf = (stdout: string) =>
  (JSON.parse(stdout) as { results: { outcome: string }[] }).results.map((r) => r.outcome);

describe('npm start -- --keep', () => {
  it('leaves DynamoDB Local and the Invoke API running with the poison records msk-inbox lists and replays, until the printed kill', async () => {
    const demo = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'local/demo/main.ts',
        '--keep',
        '--source',
        'memory',
        '--events',
        '400',
        '--poison-rate',
        '0.02',
      ],
      { cwd: PROJECT_ROOT, env: { ...process.env, PATH: process.env.PATH } },
    );
    // The lines are for copying: no path of this machine in them.
    expect(demo.stdout).not.toContain(PROJECT_ROOT);
    const listLine = /npx msk-inbox quarantine list (--endpoint \S+ --consumer \S+ --table \S+)$/m.exec(
      demo.stdout,
    );
    const functionLine =
      /npx msk-inbox quarantine replay --all (--endpoint \S+ --lambda-endpoint \S+ --function \S+ --consumer \S+ --table \S+)$/m.exec(
        demo.stdout,
      );
    const handlerLine = /APP_TABLE_NAME=(\S+) npx msk-inbox quarantine replay --all --handler (\S+) /m.exec(
      demo.stdout,
    );
    const killLine = /^\s+stop them:\s+kill (\d+) (\d+)$/m.exec(demo.stdout);
    keptPids = [Number(killLine?.[1]), Number(killLine?.[2])];
    expect(keptPids.map(isAlive)).toEqual([true, true]);
    const target = (listLine?.[1] ?? '').split(' ');
    const poison = Number(/(\d+) poison\)/.exec(demo.stdout)?.[1]);
    expect(poison).toBeGreaterThan(0);

    const listed = JSON.parse((await run('node', [BIN, 'quarantine', 'list', '--json', ...target])).stdout);
    expect(listed.total).toBe(poison);
    // A shell with AWS credentials of its own signs with them (the SDK's chain), not the demo's local pair:
    // the kept instance shares one database across keys and regions, so the printed line works there too.
    const asCaller = await mskInbox(['quarantine', 'list', '--json', ...target], {
      ...process.env,
      AWS_ACCESS_KEY_ID: 'AKIDCALLER',
      AWS_SECRET_ACCESS_KEY: 'caller-secret',
      AWS_REGION: 'eu-west-1',
    });
    expect({ code: asCaller.code, total: JSON.parse(asCaller.stdout || '{}').total }).toEqual({
      code: 0,
      total: poison,
    });

    // Through the kept runtime, as printed: exit code 1, as no record left the quarantine.
    const throughLambda = await mskInbox([
      'quarantine',
      'replay',
      '--json',
      ...`--all ${functionLine?.[1] ?? ''}`.split(' '),
    ]);
    expect(throughLambda.code).toBe(1);
    expect(outcomesOf(throughLambda.stdout)).toEqual(Array(poison).fill('quarantined-again'));

    const inProcess = await mskInbox(
      ['quarantine', 'replay', '--all', '--json', '--handler', handlerLine?.[2] ?? '', ...target],
      { ...process.env, APP_TABLE_NAME: handlerLine?.[1] },
    );
    expect(inProcess.code).toBe(1);
    expect(outcomesOf(inProcess.stdout)).toEqual(Array(poison).fill('quarantined-again'));

    for (const pid of keptPids) process.kill(pid);
    for (const pid of keptPids) expect(await endsWithin(pid, 10_000)).toBe(true);
  }, 180_000);

  it('keeps nothing when the run ends early: SIGTERM stops the DynamoDB Local it meant to keep', async () => {
    const demo = spawn(
      process.execPath,
      ['--import', 'tsx', 'local/demo/main.ts', '--keep', '--source', 'memory', '--events', '50000'],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const pid = await new Promise<number>((resolve) => {
      demo.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /DynamoDB Local to keep: \S+ \(pid (\d+)\)/.exec(output);
        if (match) resolve(Number(match[1]));
      });
    });
    keptPids = [pid];
    expect(isAlive(pid)).toBe(true);
    const exited = new Promise<number | null>((resolve) => demo.on('exit', (code) => resolve(code)));
    demo.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(await endsWithin(pid, 10_000)).toBe(true);
  }, 120_000);
});
