import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareOutDirectory } from '../../../bench/out-directory.js';
import { UserError } from '../../../operator/cli/user-error.js';

describe('the --out folder, before anything is measured', () => {
  let scratch: string;
  beforeEach(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'bench-out-'));
  });
  afterEach(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('makes a folder that does not exist, with its parents, so the page can be written at the end', async () => {
    const out = await prepareOutDirectory(join(scratch, 'new', 'nested'), 'unused');

    expect((await stat(out)).isDirectory()).toBe(true);
    await writeFile(join(out, 'benchmarks.md'), '# page\n');
  });

  it('refuses a path that is a file, in one line naming it', async () => {
    const file = join(scratch, 'a-file');
    await writeFile(file, '');

    const refused = prepareOutDirectory(file, 'unused');

    await expect(refused).rejects.toBeInstanceOf(UserError);
    await expect(refused).rejects.toThrow(`--out ${file} is a file`);
  });

  it('takes the default folder without --out', async () => {
    expect(await prepareOutDirectory(undefined, scratch)).toBe(scratch);
  });
});
