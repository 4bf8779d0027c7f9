/**
 * The README's settings table is the settings table (lambdas/core/settings.ts) written out: every variable,
 * its default, its bounds and its meaning. When they disagree this fails and prints the table as it should read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HANDLER_SETTINGS, type SettingDefinition } from '../../../lambdas/core/settings.js';
import { PROJECT_ROOT } from '../../../local/project-paths.js';

function defaultOf(definition: SettingDefinition): string {
  if (!('default' in definition) || definition.default === undefined) {
    if (definition.optional) return 'none: off (the construct sets it)';
    return definition.prop === undefined ? 'required' : 'required (the construct sets it)';
  }
  return definition.kind === 'integer' ? String(definition.default) : `\`${definition.default}\``;
}

function boundsOf(definition: SettingDefinition): string {
  switch (definition.kind) {
    case 'integer':
      return `${definition.min} to ${definition.max}`;
    case 'choice':
      return definition.choices.map((choice) => `\`${choice}\``).join(', ');
    case 'text':
      return definition.patternHint ?? 'text';
  }
}

/** The table as the README must show it. */
function settingsTable(): string {
  const rows = (Object.values(HANDLER_SETTINGS) as SettingDefinition[]).map(
    (definition) =>
      `| \`${definition.env}\` | ${defaultOf(definition)} | ${boundsOf(definition)} | ${definition.meaning} |`,
  );
  return ['| variable | default | values | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

describe('the README settings table', () => {
  it('lists every handler setting with the default, bounds and meaning the code uses', () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('<!-- settings:start -->');
    const end = readme.indexOf('<!-- settings:end -->');
    expect(start, 'README.md has no <!-- settings:start --> marker').toBeGreaterThan(-1);
    const shown = readme.slice(start + '<!-- settings:start -->'.length, end).trim();

    expect(shown).toBe(settingsTable());
  });
});
