/** What a test's code writes to stdout and stderr, kept instead of printed (restore with vi.restoreAllMocks). */
import { vi } from 'vitest';

export interface CapturedWrites {
  stdout(): string;
  stderr(): string;
  /** Every line of both streams, parsed as JSON, in the order written. */
  lines(): Record<string, unknown>[];
}

export function capturedWrites(): CapturedWrites {
  const chunks: { readonly stream: 'stdout' | 'stderr'; readonly text: string }[] = [];
  for (const stream of ['stdout', 'stderr'] as const) {
    vi.spyOn(process[stream], 'write').mockImplementation((chunk: unknown) => {
      chunks.push({ stream, text: String(chunk) });
      return true;
    });
  }
  const text = (stream: 'stdout' | 'stderr') =>
    chunks
      .filter((c) => c.stream === stream)
      .map((c) => c.text)
      .join('');
  return {
    stdout: () => text('stdout'),
    stderr: () => text('stderr'),
    lines: () =>
      chunks
        .flatMap((c) => c.text.split('\n'))
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
