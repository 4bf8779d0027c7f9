/**
 * A section of docs/benchmarks.md between two markers: the bench mode that measures it (`--store postgres`,
 * `--store redis`, `--outbox`) rewrites that section alone, and every other run keeps it as it stands.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface SectionMarkers {
  /** An HTML comment on the section's first line, saying which command rewrites it. */
  readonly start: string;
  readonly end: string;
}

export const PAGE_FILE = 'benchmarks.md';

/** The section as it stands in the page, markers included, or undefined when the page has none. */
export function sectionIn(page: string | undefined, markers: SectionMarkers): string | undefined {
  const start = page?.indexOf(markers.start) ?? -1;
  const end = page?.indexOf(markers.end) ?? -1;
  if (page === undefined || start < 0 || end < start) return undefined;
  return page.slice(start, end + markers.end.length);
}

/** The section of the page in `directory`, or undefined when there is no page or no such section. */
export async function existingSection(
  directory: string,
  markers: SectionMarkers,
): Promise<string | undefined> {
  return sectionIn(await readPage(directory), markers);
}

/** The page with the section replaced, or added at its end; a page of its own when there is none. */
export function withSection(page: string | undefined, section: string, markers: SectionMarkers): string {
  if (page === undefined) return `# Benchmarks\n\n${section}\n`;
  const start = page.indexOf(markers.start);
  const end = page.indexOf(markers.end);
  if (start < 0 || end < start) return `${page.trimEnd()}\n\n${section}\n`;
  return page.slice(0, start) + section + page.slice(end + markers.end.length);
}

/** Rewrites only this section of the page in `directory`; returns the page's path. */
export async function writeSection(
  directory: string,
  section: string,
  markers: SectionMarkers,
): Promise<string> {
  const file = join(directory, PAGE_FILE);
  await writeFile(file, withSection(await readPage(directory), section, markers));
  return file;
}

function readPage(directory: string): Promise<string | undefined> {
  return readFile(join(directory, PAGE_FILE), 'utf8').catch(() => undefined);
}
