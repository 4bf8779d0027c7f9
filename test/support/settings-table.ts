/**
 * A settings table (lambdas/core/settings.ts's shape) written out as the docs show it, and the section of a
 * doc between `<!-- <name>:start -->` and `<!-- <name>:end -->`: for the tests that hold the README's and
 * docs/redis.md's tables to the code's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SettingDefinition } from '../../lambdas/core/settings.js';
import { PROJECT_ROOT } from '../../local/project-paths.js';

/** A setting's values: its bounds, its choices, or what its text must be. */
export function boundsOf(definition: SettingDefinition): string {
  switch (definition.kind) {
    case 'integer':
      return `${definition.min} to ${definition.max}`;
    case 'choice':
      return definition.choices.map((choice) => `\`${choice}\``).join(', ');
    case 'text':
      return definition.patternHint ?? 'text';
  }
}

/** The markdown table: variable, default (as `defaultOf` words it), values, meaning. */
export function settingsTable(
  table: Readonly<Record<string, SettingDefinition>>,
  defaultOf: (definition: SettingDefinition) => string,
): string {
  const rows = Object.values(table).map(
    (definition) =>
      `| \`${definition.env}\` | ${defaultOf(definition)} | ${boundsOf(definition)} | ${definition.meaning} |`,
  );
  return ['| variable | default | values | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** The text between the doc's markers, trimmed; undefined when it has no start marker. */
export function markedSection(docPath: string, name: string): string | undefined {
  const text = readFileSync(join(PROJECT_ROOT, docPath), 'utf8');
  const start = text.indexOf(`<!-- ${name}:start -->`);
  if (start === -1) return undefined;
  const end = text.indexOf(`<!-- ${name}:end -->`, start);
  return text.slice(start + `<!-- ${name}:start -->`.length, end).trim();
}
