/**
 * `npm run docs`: the API reference (HTML) of the package's entries, from their doc comments, into
 * .cache/api-docs/ (git-ignored, never committed). TypeDoc reads the sources, so no build comes first.
 */
import { join, resolve } from 'node:path';
import { Application, ReflectionKind } from 'typedoc';
import { PROJECT_ROOT, packageEntries } from './package-entries.js';

const OUT = join(PROJECT_ROOT, '.cache', 'api-docs');
const entries = packageEntries();

const app = await Application.bootstrapWithPlugins({
  entryPoints: entries.map((entry) => join(PROJECT_ROOT, entry.source)),
  // The build's program (the entries and what they import), not the tests', local tools' and bench's too.
  tsconfig: join(PROJECT_ROOT, 'tsconfig.build.json'),
  name: 'MSK Inbox',
  readme: 'none',
  excludePrivate: true,
  excludeInternal: true,
  out: OUT,
});
const project = await app.convert();
if (project === undefined) {
  console.error('TypeDoc could not convert the entries: see the messages above');
  process.exit(1);
}
// TypeDoc names a module by its file's path (lambdas/avro/avro-values); a reader imports msk-inbox/avro.
const bySource = new Map(entries.map((entry) => [resolve(PROJECT_ROOT, entry.source), entry.specifier]));
for (const module of project.getChildrenByKind(ReflectionKind.Module)) {
  const specifier = bySource.get(module.sources?.[0]?.fullFileName ?? '');
  if (specifier !== undefined) module.name = specifier;
}
app.validate(project);
await app.generateOutputs(project);
if (app.logger.hasErrors()) process.exit(1);
console.log(`API reference: ${join('.cache', 'api-docs', 'index.html')}`);
