/**
 * The real `msk-inbox` command, spawned, on a Postgres inbox: a mistake (a URL that is not one, nothing
 * answering, the tables missing) is one line on stderr naming the fix, exit 2; once migrated, the
 * commands answer, and the process ends on its own (its connections end with the command).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPostgres, startLocalPostgres } from '../support/local-postgres.js';
import { expectOneLine, mskInbox } from '../support/msk-inbox-cli.js';

let postgres: LocalPostgres;
const at = (schema: string) => ['--postgres', postgres.url, '--schema', schema];

beforeAll(async () => {
  postgres = await startLocalPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

describe('msk-inbox on Postgres, spawned', () => {
  it('names a URL that is not a postgres:// one, without its password', async () => {
    expectOneLine(
      await mskInbox(['quarantine', 'list', '--consumer', 'orders', '--postgres', 'http://u:hunter2@db/app']),
      /^msk-inbox: --postgres http:\/\/u:\*\*\*@db\/app is not a postgres:\/\/ URL: e\.g\. /,
    );
  });

  it('says nothing answers at the address', async () => {
    expectOneLine(
      await mskInbox([
        'quarantine',
        'list',
        '--consumer',
        'orders',
        '--postgres',
        'postgres://u:p@127.0.0.1:9/app',
      ]),
      'msk-inbox: nothing answers at 127.0.0.1:9/app (ECONNREFUSED): is the database running? check --postgres',
    );
  });

  it('says to migrate where the tables are missing, then lists once they are made', async () => {
    expectOneLine(
      await mskInbox(['quarantine', 'list', '--consumer', 'orders', ...at('cli_schema')]),
      /^msk-inbox: the inbox tables are missing or out of date in schema cli_schema at .*: run `msk-inbox postgres migrate --postgres postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres --schema cli_schema`$/,
    );
    const migrated = await mskInbox(['postgres', 'migrate', ...at('cli_schema')]);
    expect({ code: migrated.code, stdout: migrated.stdout }).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^schema cli_schema at .*: applied migration 1, 2/),
    });
    const listed = await mskInbox(['quarantine', 'list', '--consumer', 'orders', ...at('cli_schema')]);
    expect({ code: listed.code, stdout: listed.stdout.trim() }).toEqual({
      code: 0,
      stdout: 'no quarantined records for consumer orders',
    });
  });

  it('answers --help on the postgres commands', async () => {
    for (const command of [['postgres'], ['postgres', 'migrate'], ['postgres', 'delete-expired']]) {
      const help = await mskInbox([...command, '--help']);
      expect({ command, code: help.code }).toEqual({ command, code: 0 });
      expect(help.stdout).toMatch(/^Usage: msk-inbox postgres/);
    }
  });
});
