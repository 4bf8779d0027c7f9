/**
 * The sample dashboard, synthesized once per version of the sources it comes from: the template changes
 * only when the constructs (lib/), the sample stack (sample/), the handler's metric names and settings
 * (lambdas/), cdk.json or the pinned aws-cdk-lib (package-lock.json) do (or the code reading it,
 * local/dashboard/), so a run reuses the last synthesis when none of them changed
 * and synthesizes on a worker thread otherwise. Synthesis costs 1 to 2 s of CPU that a run on two busy
 * cores feels even off the main thread.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../project-paths.js';
import type { SampleDashboard } from './sample-dashboard.js';
import { synthesizeOnWorkerThread } from './synthesis-thread.js';

// local/dashboard reads the template into what is cached: a change there counts too.
const SOURCE_FOLDERS = ['lib', 'sample', 'lambdas', 'local/dashboard'];
const SOURCE_FILES = ['cdk.json', 'package-lock.json'];

export async function sampleDashboard(consumerName: string, cachePath: string): Promise<SampleDashboard> {
  const key = await sourcesKey(consumerName);
  try {
    const cached = JSON.parse(await readFile(cachePath, 'utf8')) as {
      key: string;
      dashboard: SampleDashboard;
    };
    if (cached.key === key) return cached.dashboard;
  } catch {
    // No cache yet, or one that cannot be read: synthesize.
  }
  const dashboard = await synthesizeOnWorkerThread(consumerName);
  await mkdir(dirname(cachePath), { recursive: true });
  await writeFile(cachePath, JSON.stringify({ key, dashboard }));
  return dashboard;
}

/** A digest of every source file the template depends on, and of the consumer's name. */
async function sourcesKey(consumerName: string): Promise<string> {
  const folders = await Promise.all(
    SOURCE_FOLDERS.map(async (folder) =>
      (await readdir(join(PROJECT_ROOT, folder), { recursive: true }))
        .filter((file) => file.endsWith('.ts'))
        .map((file) => join(folder, file)),
    ),
  );
  const files = [...folders.flat(), ...SOURCE_FILES].sort();
  const hash = createHash('sha256').update(consumerName);
  for (const file of files) {
    hash.update(`\0${file}\0`).update(await readFile(join(PROJECT_ROOT, file)));
  }
  return hash.digest('hex');
}
