import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleDashboard } from '../../local/dashboard/dashboard-cache.js';
import { synthesizeSampleDashboard } from '../../local/dashboard/sample-dashboard.js';

describe('the sample dashboard for npm start', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'msk-inbox-dashboard-cache-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('is the synthesized one, made on a worker thread, then reused while its sources are unchanged', async () => {
    const cachePath = join(folder, 'sample-dashboard.json');
    const [onWorker, inProcess] = await Promise.all([
      sampleDashboard('orders', cachePath),
      synthesizeSampleDashboard('orders'),
    ]);
    expect(onWorker).toEqual(JSON.parse(JSON.stringify(inProcess)));

    // A marker only the cache holds comes back: the second call did not synthesize.
    const cached = JSON.parse(await readFile(cachePath, 'utf8'));
    cached.dashboard.widgets[0].title = 'from the cache';
    await writeFile(cachePath, JSON.stringify(cached));
    expect((await sampleDashboard('orders', cachePath)).widgets[0]?.title).toBe('from the cache');
  }, 60_000);

  it('is synthesized again when what it comes from differs (here, the consumer)', async () => {
    const cachePath = join(folder, 'other.json');
    await sampleDashboard('orders', cachePath);
    const payments = await sampleDashboard('payments', cachePath);
    expect(JSON.stringify(payments.widgets)).toContain('payments');
    expect(JSON.stringify(payments.widgets)).not.toContain('"orders"');
  }, 60_000);
});
