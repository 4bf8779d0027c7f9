/**
 * The README's "Your consumer", "Your app", "More consumers" and "Events to the next topic" show the very
 * files the adoption test installs and runs: whole, or (the emitting consumer's app) lines of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../local/project-paths.js';

const readme = () => readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
const fixture = (file: string) =>
  readFileSync(join(PROJECT_ROOT, 'test', 'e2e', 'adoption', `${file}.txt`), 'utf8').trimEnd();

describe('the README adoption example', () => {
  it.each([
    'payments.ts',
    'receipts.ts',
    'order-status.ts',
    'app.ts',
    'shipments.ts',
    'ledger.ts',
    'ledger-app.ts',
    'orders.ts',
  ])('shows %s as the adoption test writes it', (file) => {
    expect(readme()).toContain(`\`\`\`ts\n${fixture(file)}\n\`\`\``);
  });

  it("shows orders-app.ts's outbox lines as the adoption test writes them", () => {
    const after = readme().split('Its app, `orders-app.ts`')[1] ?? '';
    const block = /```ts\n([\s\S]*?)\n```/.exec(after)?.[1] ?? '';
    const lines = new Set(fixture('orders-app.ts').split('\n'));
    expect(block.split('\n').length).toBeGreaterThanOrEqual(5);
    expect(block.split('\n').filter((line) => !lines.has(line))).toEqual([]);
  });
});
