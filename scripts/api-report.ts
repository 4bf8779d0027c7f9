/**
 * API reports of the package's entries (docs/api/<entry>.api.md), made by API Extractor from the built
 * declarations in dist/, one report per entry of package.json `exports` over the shared api-extractor.json.
 *
 *   npm run api        builds, then rewrites the reports: commit them with the change of surface
 *   npm run api:check  (CI, after a build) fails when the built surface differs from the reports
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { PROJECT_ROOT, packageEntries } from './package-entries.js';

const local = process.argv.includes('--local');
const configFile = join(PROJECT_ROOT, 'api-extractor.json');

const runs = packageEntries().map((entry) => {
  const declarations = join(PROJECT_ROOT, entry.types);
  if (!existsSync(declarations)) {
    throw new Error(`${entry.types} is missing: run npm run build first (npm run api builds by itself)`);
  }
  const configObject = ExtractorConfig.loadFile(configFile);
  configObject.mainEntryPointFilePath = declarations;
  configObject.apiReport = { ...configObject.apiReport, enabled: true, reportFileName: entry.reportName };
  const config = ExtractorConfig.prepare({
    configObject,
    configObjectFullPath: configFile,
    packageJsonFullPath: join(PROJECT_ROOT, 'package.json'),
  });
  return { entry, config };
});
const [first] = runs;
if (first === undefined) throw new Error('package.json has no exports to report');
if (local) mkdirSync(first.config.reportFolder, { recursive: true });

// One TypeScript program for every entry: each of its own takes as long again (aws-cdk-lib's types).
const compilerState = CompilerState.create(first.config, {
  additionalEntryPoints: runs.map((run) => run.config.mainEntryPointFilePath),
});
const failed: string[] = [];
for (const { entry, config } of runs) {
  // localBuild rewrites docs/api/; otherwise a report that differs, or any warning, fails the run.
  const result = Extractor.invoke(config, { localBuild: local, compilerState, showVerboseMessages: false });
  if (!result.succeeded) failed.push(entry.specifier);
  else if (result.apiReportChanged)
    console.log(`${entry.specifier}: docs/api/${entry.reportName}.api.md updated`);
}

if (failed.length > 0) {
  console.error(
    local
      ? `API Extractor failed for ${failed.join(', ')}: see the messages above`
      : `The public API of ${failed.join(', ')} differs from docs/api/ (or has warnings): run npm run api and commit docs/api/`,
  );
  process.exit(1);
}
