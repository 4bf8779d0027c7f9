import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TracingBenchResults } from '../../../bench/tracing/run-tracing-bench.js';
import {
  existingTracingSection,
  tracingSection,
  writeTracingSection,
} from '../../../bench/tracing/tracing-report.js';

const spread = (median: number) => ({ median, min: median - 1, max: median + 1, samples: 5 });
const RESULTS: TracingBenchResults = {
  rounds: 5,
  recordsPerRound: 10_000,
  rows: [
    { variant: 'off', cpuMicrosPerRecord: spread(100), spansPerRecord: 0 },
    { variant: 'api', cpuMicrosPerRecord: spread(101), spansPerRecord: 0 },
    { variant: 'sdk', cpuMicrosPerRecord: spread(150), spansPerRecord: 1.09 },
  ],
  bundleBytes: { untraced: 300_000, traced: 310_240 },
  coldInit: {
    untraced: { importMs: spread(80), fromProcessStartMs: spread(120) },
    traced: { importMs: spread(82), fromProcessStartMs: spread(122) },
  },
  initInstructions: undefined,
};
const MACHINE = { cpu: 'Test CPU', cores: 2, memoryGb: 4, node: 'v20', java: '17', os: 'linux' };

describe('the tracing section of the benchmarks page', () => {
  it('states each variant against tracing off, as added µs and per cent', () => {
    const section = tracingSection({
      results: RESULTS,
      machine: MACHINE,
      command: 'npm run bench -- --tracing',
    });
    expect(section).toContain(
      '| off | no `tracing` option: the engine with NO_TRACE | 100.0 | 99.0 to 101.0 |  | 0.00 |',
    );
    expect(section).toMatch(/\| api \|[^\n]*\| 101\.0 \| 100\.0 to 102\.0 \| \+1\.0 \(\+1\.0%\) \| 0\.00 \|/);
    expect(section).toMatch(
      /\| sdk \|[^\n]*\| 150\.0 \| 149\.0 to 151\.0 \| \+50\.0 \(\+50\.0%\) \| 1\.09 \|/,
    );
  });

  it('rewrites only its own section of the page, and another run keeps it', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'msk-inbox-tracing-report-'));
    try {
      await writeFile(join(directory, 'benchmarks.md'), '# Benchmarks\n\nthe rest\n');
      const section = tracingSection({ results: RESULTS, machine: MACHINE, command: 'x' });
      await writeTracingSection(directory, section);
      await writeTracingSection(directory, section);
      const page = await readFile(join(directory, 'benchmarks.md'), 'utf8');
      expect(page.startsWith('# Benchmarks\n\nthe rest\n')).toBe(true);
      expect(page.split('## What tracing costs')).toHaveLength(2);
      expect(await existingTracingSection(directory)).toBe(section);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
