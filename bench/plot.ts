/**
 * docs/benchmarks.svg: records/s against the modelled base round trip, one panel per scenario, one line per
 * contender, drawn from docs/benchmarks.json's rows. Hand-written SVG: a few lines and labels need no library.
 */
import type { BenchRow } from './bench-json.js';

const PANEL = { width: 320, height: 230, left: 58, right: 14, top: 30, bottom: 42 } as const;
const COLUMNS = 3;
const TITLE_HEIGHT = 34;

/** Fixed per contender, so every panel (and every run's plot) reads alike. */
interface LineStyle {
  readonly color: string;
  readonly dash?: string;
}

const STYLE: Readonly<Record<string, LineStyle>> = {
  'inbox-tx': { color: '#1f77b4' },
  'inbox-tx-ungrouped': { color: '#1f77b4', dash: '5 4' },
  'inbox-tx-per-key': { color: '#2ca02c' },
  'inbox-claim': { color: '#9467bd' },
  'inbox-idempotent': { color: '#ff7f0e' },
  powertools: { color: '#d62728' },
};
/** A contender added later (not in STYLE) takes the next of these, by its place in the list drawn. */
const SPARE_COLORS = ['#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'] as const;

/** The colour of a contender STYLE leaves out, the same on every plot of the page. */
function contenderColor(contender: string, contenders: readonly string[]): string {
  const spare = contenders.filter((c) => STYLE[c] === undefined).indexOf(contender);
  return SPARE_COLORS[Math.max(0, spare) % SPARE_COLORS.length] ?? '#7f7f7f';
}

/** A contender's colour, and its dash where two contenders share a colour (inbox-tx and its ungrouped variant). */
export function styleOf(contender: string, contenders: readonly string[]): LineStyle {
  return STYLE[contender] ?? { color: contenderColor(contender, contenders) };
}

export function renderPlot(
  rows: readonly BenchRow[],
  scenarios: readonly string[],
  contenders: readonly string[],
): string {
  const cells = [...scenarios.filter((s) => rows.some((r) => r.scenario === s)), 'legend'];
  const rowsOfPanels = Math.ceil(cells.length / COLUMNS);
  const width = COLUMNS * PANEL.width;
  const height = TITLE_HEIGHT + rowsOfPanels * PANEL.height;
  const parts = cells.map((cell, index) => {
    const x = (index % COLUMNS) * PANEL.width;
    const y = TITLE_HEIGHT + Math.floor(index / COLUMNS) * PANEL.height;
    const body =
      cell === 'legend'
        ? legend(contenders)
        : panel(
            cell,
            rows.filter((r) => r.scenario === cell),
            contenders,
          );
    return `<g transform="translate(${x},${y})">\n${body}\n</g>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="11" role="img" aria-labelledby="title">
<title id="title">Records/s of each contender against the modelled base round trip to DynamoDB, one panel per scenario</title>
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">Records/s against the modelled round trip to DynamoDB (npm run bench)</text>
${parts.join('\n')}
</svg>
`;
}

function panel(scenario: string, rows: readonly BenchRow[], contenders: readonly string[]): string {
  const rtts = [...new Set(rows.map((r) => r.rttMs))].sort((a, b) => a - b);
  const values = rows.map((r) => r.recordsPerSecond).filter((v) => v > 0);
  const low = Math.floor(Math.log10(Math.min(...values)));
  const high = Math.max(low + 1, Math.ceil(Math.log10(Math.max(...values))));
  const plotWidth = PANEL.width - PANEL.left - PANEL.right;
  const plotHeight = PANEL.height - PANEL.top - PANEL.bottom;
  const maxRtt = Math.max(1, ...rtts);
  const sx = (rtt: number) => PANEL.left + (rtt / maxRtt) * plotWidth;
  const sy = (value: number) =>
    PANEL.top + plotHeight - ((Math.log10(Math.max(value, 10 ** low)) - low) / (high - low)) * plotHeight;
  const out: string[] = [
    `<text x="${PANEL.left + plotWidth / 2}" y="18" text-anchor="middle" font-size="13" font-weight="bold">${xmlText(scenario)}</text>`,
    `<rect x="${PANEL.left}" y="${PANEL.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#999"/>`,
  ];
  for (let decade = low; decade <= high; decade += 1) {
    const y = sy(10 ** decade).toFixed(1);
    out.push(
      `<line x1="${PANEL.left}" x2="${PANEL.left + plotWidth}" y1="${y}" y2="${y}" stroke="#e3e3e3"/>`,
      `<text x="${PANEL.left - 5}" y="${y}" text-anchor="end" dominant-baseline="middle">${decadeLabel(decade)}</text>`,
    );
  }
  for (const rtt of rtts) {
    const x = sx(rtt).toFixed(1);
    out.push(
      `<line x1="${x}" x2="${x}" y1="${PANEL.top}" y2="${PANEL.top + plotHeight}" stroke="#f0f0f0"/>`,
      `<text x="${x}" y="${PANEL.top + plotHeight + 14}" text-anchor="middle">${rtt}</text>`,
    );
  }
  out.push(
    `<text x="${PANEL.left + plotWidth / 2}" y="${PANEL.height - 8}" text-anchor="middle">base RTT (ms)</text>`,
    `<text transform="translate(14,${PANEL.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">records/s (log)</text>`,
  );
  for (const contender of contenders) {
    const points = rows
      .filter((r) => r.contender === contender && r.recordsPerSecond > 0)
      .sort((a, b) => a.rttMs - b.rttMs);
    if (points.length === 0) continue;
    const style = styleOf(contender, contenders);
    const path = points
      .map((p) => `${sx(p.rttMs).toFixed(1)},${sy(p.recordsPerSecond).toFixed(1)}`)
      .join(' ');
    out.push(
      `<polyline points="${path}" fill="none" stroke="${style.color}" stroke-width="2"${style.dash ? ` stroke-dasharray="${style.dash}"` : ''}/>`,
      ...points.map(
        (p) =>
          `<circle cx="${sx(p.rttMs).toFixed(1)}" cy="${sy(p.recordsPerSecond).toFixed(1)}" r="3" fill="${style.color}"><title>${xmlText(
            `${contender}, rttMs ${p.rttMs}: ${p.recordsPerSecond.toFixed(0)} records/s, ${p.requestsPerRecord.toFixed(3)} requests/record`,
          )}</title></circle>`,
      ),
    );
  }
  return out.join('\n');
}

function legend(contenders: readonly string[]): string {
  const out = [`<text x="${PANEL.left}" y="18" font-size="13" font-weight="bold">contenders</text>`];
  contenders.forEach((contender, index) => {
    const style = styleOf(contender, contenders);
    const y = PANEL.top + 8 + index * 20;
    out.push(
      `<line x1="${PANEL.left}" x2="${PANEL.left + 30}" y1="${y}" y2="${y}" stroke="${style.color}" stroke-width="2"${style.dash ? ` stroke-dasharray="${style.dash}"` : ''}/>`,
      `<circle cx="${PANEL.left + 15}" cy="${y}" r="3" fill="${style.color}"/>`,
      `<text x="${PANEL.left + 38}" y="${y}" dominant-baseline="middle">${xmlText(contender)}</text>`,
    );
  });
  const notes = [
    'rttMs 0: DynamoDB Local as it answers.',
    'Above 0: the modelled network',
    '(bench/network-model.ts), on each',
    'scenario’s first records',
    '(docs/benchmarks.md says which).',
  ];
  notes.forEach((note, index) => {
    out.push(
      `<text x="${PANEL.left}" y="${PANEL.top + 20 + contenders.length * 20 + index * 14}" fill="#555">${xmlText(note)}</text>`,
    );
  });
  return out.join('\n');
}

function decadeLabel(decade: number): string {
  const value = 10 ** decade;
  if (value >= 1_000_000) return `${value / 1_000_000}M`;
  if (value >= 1_000) return `${value / 1_000}k`;
  return String(value);
}

export function xmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
