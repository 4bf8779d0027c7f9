/**
 * The tracing cost's child (bench/tracing/tracing-child.ts) runs as the bench runs it and measures what it
 * says: the consumer's records all applied, spans exported only where an SDK is registered. Its timings are
 * the bench's to report, never asserted here.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../../bench/measure/child-process.js';
import type { TracingSample } from '../../../bench/tracing/tracing-variants.js';
import { PROJECT_ROOT } from '../../../local/project-paths.js';

async function sample(variant: string): Promise<TracingSample> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', join(PROJECT_ROOT, 'bench', 'tracing', 'tracing-child.ts'), variant],
    {
      env: { ...process.env, TRACING_BENCH_BATCHES: '2' },
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '') as TracingSample;
}

describe('the tracing cost child', () => {
  it('exports a span per record and more with an SDK registered, none without', async () => {
    const [off, api, sdk] = await Promise.all([sample('off'), sample('api'), sample('sdk')]);
    expect(off).toMatchObject({ variant: 'off', records: 200, spans: 0 });
    expect(api).toMatchObject({ variant: 'api', records: 200, spans: 0 });
    expect(sdk.records).toBe(200);
    // Each record's span, each invocation's and partition's, and the transactions.
    expect(sdk.spans).toBeGreaterThan(200);
    for (const s of [off, api, sdk]) expect(s.cpuMicrosPerRecord).toBeGreaterThan(0);
  }, 120_000);

  it('refuses a variant it does not know', async () => {
    await expect(sample('everything')).rejects.toThrow(/variant must be one of off, api, sdk/);
  });
});
