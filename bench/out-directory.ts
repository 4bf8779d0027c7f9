/**
 * `--out DIR`: checked and made (with its parents) before anything is measured, so a run that takes minutes
 * never fails at its end for want of the folder it writes the page into.
 */
import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UserError } from '../operator/cli/user-error.js';

/** The folder the bench writes to, made if missing; `fallback` (docs/) without `--out`. */
export async function prepareOutDirectory(raw: string | undefined, fallback: string): Promise<string> {
  const out = raw === undefined ? fallback : resolve(raw);
  const existing = await stat(out).catch(() => undefined);
  if (existing !== undefined && !existing.isDirectory()) {
    throw new UserError(`--out ${raw ?? out} is a file: give a folder (a missing one is made)`);
  }
  try {
    await mkdir(out, { recursive: true });
    await access(out, constants.W_OK);
  } catch (error) {
    throw new UserError(
      `--out ${raw ?? out}: cannot make or write that folder (${(error as Error).message})`,
    );
  }
  return out;
}
