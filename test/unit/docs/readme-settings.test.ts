/**
 * The README's settings table is the settings table (lambdas/core/settings.ts) written out: every variable,
 * its default, its bounds and its meaning. When they disagree this fails and prints the table as it should read.
 */
import { describe, expect, it } from 'vitest';
import { HANDLER_SETTINGS, type SettingDefinition } from '../../../lambdas/core/settings.js';
import { markedSection, settingsTable } from '../../support/settings-table.js';

function defaultOf(definition: SettingDefinition): string {
  if (!('default' in definition) || definition.default === undefined) {
    if (definition.optional) return 'none: off (the construct sets it)';
    return definition.prop === undefined ? 'required' : 'required (the construct sets it)';
  }
  return definition.kind === 'integer' ? String(definition.default) : `\`${definition.default}\``;
}

describe('the README settings table', () => {
  it('lists every handler setting with the default, bounds and meaning the code uses', () => {
    const shown = markedSection('README.md', 'settings');
    expect(shown, 'README.md has no <!-- settings:start --> marker').toBeDefined();

    expect(shown).toBe(settingsTable(HANDLER_SETTINGS, defaultOf));
  });
});
