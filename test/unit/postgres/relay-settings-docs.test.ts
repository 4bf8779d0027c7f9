/**
 * docs/postgres.md's table of the Postgres relay's settings says what POSTGRES_RELAY_SETTINGS says: each
 * variable once, with its default.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { POSTGRES_RELAY_SETTINGS } from '../../../lambdas/postgres/outbox/relay-settings.js';
import { PROJECT_ROOT } from '../../../local/project-paths.js';

it('docs/postgres.md lists every Postgres relay setting with its default, and no other', () => {
  const doc = readFileSync(join(PROJECT_ROOT, 'docs', 'postgres.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| `(OUTBOX_[A-Z_]+)` \| `([^`]*)` \|/gm)].map(([, env, value]) => [
    env,
    value,
  ]);
  expect(rows).toEqual(
    Object.values(POSTGRES_RELAY_SETTINGS).map((setting) => [setting.env, String(setting.default)]),
  );
});
