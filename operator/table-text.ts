/** Columns for a person: each as wide as its widest cell, the last one left ragged. */
export function tableText(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** Epoch ms as UTC to the second, e.g. 2026-11-30 23:20:05Z. */
export function whenText(epochMs: number | undefined): string {
  if (epochMs === undefined) return '-';
  return `${new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

export function bytesText(bytes: number, approximate = false): string {
  const text = bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
  return approximate ? `>${text}` : text;
}

/** A duration for a person, two units at most: 45s, 12m 5s, 3h 20m, 2d 4h. */
export function ageText(ms: number | undefined): string {
  if (ms === undefined) return '-';
  const seconds = Math.max(0, Math.floor(ms / 1_000));
  const first = AGE_UNITS.findIndex(([, size]) => seconds >= size);
  const [unit, size] = AGE_UNITS[first] ?? ['s', 1];
  const head = `${Math.floor(seconds / size)}${unit}`;
  const next = AGE_UNITS[first + 1];
  if (first < 0 || next === undefined) return head;
  const rest = Math.floor((seconds % size) / next[1]);
  return rest === 0 ? head : `${head} ${rest}${next[0]}`;
}

const AGE_UNITS: readonly (readonly [string, number])[] = [
  ['d', 86_400],
  ['h', 3_600],
  ['m', 60],
  ['s', 1],
];
