import { describe, expect, it } from 'vitest';
import { ProgressPrinter } from '../../../../operator/cli/progress-printer.js';

function recorder(isTTY: boolean, columns?: number) {
  const chunks: string[] = [];
  return { chunks, out: { isTTY, columns, write: (chunk: string) => chunks.push(chunk) > 0 } };
}

describe('ProgressPrinter', () => {
  it('writes each count as a line of its own when the output is a pipe', () => {
    const { chunks, out } = recorder(false);
    const printer = new ProgressPrinter(out);
    printer.log('starting');
    printer.status('1.0s committed 10');
    printer.status('2.0s committed 20');
    printer.finish();
    expect(chunks.join('')).toBe('starting\n1.0s committed 10\n2.0s committed 20\n');
  });

  it('rewrites the count in place, cut to the width, and keeps it on screen at the end when the output is a terminal', () => {
    const { chunks, out } = recorder(true, 12);
    const printer = new ProgressPrinter(out);
    printer.status('1.0s committed 10');
    printer.status('2.0s committed 20');
    printer.finish();
    expect(chunks).toEqual(['\r\x1b[2K1.0s commit', '\r\x1b[2K2.0s commit', '\n']);
  });

  it('clears the count before a line that stays when the output is a terminal', () => {
    const { chunks, out } = recorder(true);
    const printer = new ProgressPrinter(out);
    printer.status('1.0s');
    printer.log('produced');
    printer.finish();
    expect(chunks).toEqual(['\r\x1b[2K1.0s', '\r\x1b[2K', 'produced\n']);
  });
});
