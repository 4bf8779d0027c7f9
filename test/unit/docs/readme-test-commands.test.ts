/**
 * The README's Tests section lists the vitest projects of vitest.config.ts: every `--project NAME` it shows
 * exists, every project is shown, and exactly the projects without the DynamoDB Local setup are the ones it
 * says start no Java process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../local/project-paths.js';
import { DYNAMODB_LOCAL_SETUP, projects } from '../../../vitest.config.js';

const NO_JAVA = 'starts no Java process';

interface ListedProject {
  readonly name: string;
  readonly comment: string;
}

/** The `npx vitest run --project NAME  # comment` lines of the README's Tests section. */
function listedProjects(): ListedProject[] {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Tests\n');
  if (start === -1) throw new Error('README.md has no "## Tests" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^npx vitest run --project (\S+)[ \t]*(?:#(.*))?$/gm)].map((match) => ({
    name: match[1] ?? '',
    comment: match[2]?.trim() ?? '',
  }));
}

/** Each project's name and whether its globalSetup starts DynamoDB Local. */
function configuredProjects(): { readonly name: string; readonly startsDynamoDbLocal: boolean }[] {
  return projects.map((project) => {
    const name = project.test?.name;
    const globalSetup = [project.test?.globalSetup ?? []].flat();
    return {
      name: typeof name === 'string' ? name : (name?.label ?? ''),
      startsDynamoDbLocal: globalSetup.includes(DYNAMODB_LOCAL_SETUP),
    };
  });
}

describe('the README test commands', () => {
  const listed = listedProjects();
  const configured = configuredProjects();

  it('list only projects that vitest.config.ts defines', () => {
    expect(listed.length, 'the Tests section lists no `npx vitest run --project NAME`').toBeGreaterThan(0);
    const defined = configured.map((project) => project.name);
    for (const { name } of listed) {
      expect(defined, `README lists --project ${name}, which vitest.config.ts does not define`).toContain(
        name,
      );
    }
  });

  it('list every project that vitest.config.ts defines', () => {
    const shown = listed.map((project) => project.name);
    for (const { name } of configured) {
      expect(shown, `vitest.config.ts defines project ${name}, which README's Tests section omits`).toContain(
        name,
      );
    }
  });

  it(`say "${NO_JAVA}" of exactly the projects that do not start DynamoDB Local`, () => {
    const saidToStartNoJava = listed
      .filter((project) => project.comment.includes(NO_JAVA))
      .map((project) => project.name)
      .sort();
    const withoutDynamoDbLocal = configured
      .filter((project) => !project.startsDynamoDbLocal)
      .map((project) => project.name)
      .sort();
    expect(saidToStartNoJava).toEqual(withoutDynamoDbLocal);
  });
});
