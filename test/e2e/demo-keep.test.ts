/**
 * `npm start -- --keep`, spawned, then the operator CLI on what it left: the "done when" (issue 15):
 * the kept DynamoDB Local holds the demo's poison records, `msk-inbox quarantine list` lists them, a replay
 * through the demo's own handler quarantines them again, and the printed `kill` line stops it.
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
let keptPid: number | undefined;

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
  if (keptPid !== undefined && isAlive(keptPid)) process.kill(keptPid);
});

describe('npm start -- --keep', () => {
  it('leaves DynamoDB Local running with the poison records msk-inbox lists and replays, until the printed kill', async () => {
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
    const listLine = /npx msk-inbox quarantine list (--endpoint \S+ --consumer \S+ --table \S+)$/m.exec(
      demo.stdout,
    );
    const replayLine = /APP_TABLE_NAME=(\S+) npx msk-inbox quarantine replay --all --handler (\S+) /m.exec(
      demo.stdout,
    );
    const killLine = /^\s+stop it:\s+kill (\d+)$/m.exec(demo.stdout);
    keptPid = Number(killLine?.[1]);
    expect(isAlive(keptPid)).toBe(true);
    const target = (listLine?.[1] ?? '').split(' ');
    const poison = Number(/(\d+) poison\)/.exec(demo.stdout)?.[1]);
    expect(poison).toBeGreaterThan(0);

    const listed = JSON.parse((await run('node', [BIN, 'quarantine', 'list', '--json', ...target])).stdout);
    expect(listed.total).toBe(poison);

    const replay = run(
      'node',
      [BIN, 'quarantine', 'replay', '--all', '--json', '--handler', replayLine?.[2] ?? '', ...target],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, APP_TABLE_NAME: replayLine?.[1] },
      },
    );
    // Exit code 1: not every record left the quarantine.
    const failed = await replay.then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failed?.code).toBe(1);
    const outcomes = (JSON.parse(failed?.stdout ?? '{}') as { results: { outcome: string }[] }).results.map(
      (r) => r.outcome,
    );
    expect(outcomes).toEqual(Array(poison).fill('quarantined-again'));

    process.kill(keptPid);
    expect(await endsWithin(keptPid, 10_000)).toBe(true);
  }, 120_000);

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
    keptPid = pid;
    expect(isAlive(pid)).toBe(true);
    const exited = new Promise<number | null>((resolve) => demo.on('exit', (code) => resolve(code)));
    demo.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(await endsWithin(pid, 10_000)).toBe(true);
  }, 120_000);
});
