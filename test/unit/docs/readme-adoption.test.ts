/** The README's "Your consumer", "Your app" and "More consumers" show the very files the adoption test installs and runs. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../local/project-paths.js';

describe('the README adoption example', () => {
  it.each(['payments.ts', 'receipts.ts', 'app.ts', 'shipments.ts', 'ledger.ts', 'ledger-app.ts'])(
    'shows %s as the adoption test writes it',
    (file) => {
      const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
      const fixture = readFileSync(
        join(PROJECT_ROOT, 'test', 'e2e', 'adoption', `${file}.txt`),
        'utf8',
      ).trimEnd();
      expect(readme).toContain(`\`\`\`ts\n${fixture}\n\`\`\``);
    },
  );
});
