/**
 * docs/redis.md's settings table is REDIS_SETTINGS (lambdas/redis/redis-settings.ts) written out: every
 * variable, its default, its values and its meaning. When they disagree this fails and prints the table as
 * it should read.
 */
import { describe, expect, it } from 'vitest';
import type { SettingDefinition } from '../../../lambdas/core/settings.js';
import { REDIS_SETTINGS } from '../../../lambdas/redis/redis-settings.js';
import { markedSection, settingsTable } from '../../support/settings-table.js';

function defaultOf(definition: SettingDefinition): string {
  if (!('default' in definition) || definition.default === undefined) return 'none';
  return definition.kind === 'integer' ? String(definition.default) : `\`${definition.default}\``;
}

describe('the docs/redis.md settings table', () => {
  it('lists every Redis setting with the default, values and meaning the code uses', () => {
    const shown = markedSection('docs/redis.md', 'redis-settings');
    expect(shown, 'docs/redis.md has no <!-- redis-settings:start --> marker').toBeDefined();

    expect(shown).toBe(settingsTable(REDIS_SETTINGS, defaultOf));
  });
});
