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
