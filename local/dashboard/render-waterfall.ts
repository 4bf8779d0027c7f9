/**
 * The slowest records' traces under the dashboard's grid (docs/tracing.md#locally), one waterfall each:
 * a row per span, its bar placed on the invocation's time axis. Once the page has laid them out, the script
 * sets each figure's `data-drawn="waterfall"` and each row's `data-bar-px` (the bar's rendered width) and
 * `data-bar-left-px`, which the browser test reads back.
 */
import type { RecordWaterfall, WaterfallRow } from '../tracing/waterfall.js';
import { escapeHtml } from './html-text.js';

/** A span shorter than this still shows: the bar's least width, in CSS pixels. */
const MIN_BAR_PX = 2;
const INDENT_PX = 14;

export function renderWaterfalls(waterfalls: readonly RecordWaterfall[], tracesNote: string): string {
  const figures = waterfalls.map(renderWaterfall).join('\n');
  return `<div class="traces" id="traces">
<h2>Slowest records, traced</h2>
<p>${escapeHtml(tracesNote)}</p>
${figures}
</div>`;
}

function renderWaterfall(waterfall: RecordWaterfall): string {
  const span = Math.max(waterfall.axisEndMs - waterfall.axisStartMs, 0.001);
  const produced =
    waterfall.producedBeforeMs === undefined
      ? 'no producer span linked'
      : `linked to its producer's span, which ended ${ms(waterfall.producedBeforeMs)} before the invocation`;
  return `<figure class="waterfall" data-record="${escapeHtml(waterfall.record)}" data-outcome="${escapeHtml(waterfall.outcome)}" data-duration-ms="${waterfall.durationMs.toFixed(3)}" data-drawn="pending">
<figcaption><b>${escapeHtml(waterfall.record)}</b> · ${escapeHtml(waterfall.outcome)} · ${ms(waterfall.durationMs)} · ${escapeHtml(produced)}</figcaption>
${waterfall.rows.map((row) => renderRow(row, waterfall.axisStartMs, span)).join('\n')}
</figure>`;
}

function renderRow(row: WaterfallRow, axisStartMs: number, axisMs: number): string {
  // The producer's span ended before the axis starts: a mark at its left edge, its distance in the label.
  const before = row.role === 'producer';
  const left = before ? 0 : clampPercent(((row.startMs - axisStartMs) / axisMs) * 100);
  const width = before ? 0 : clampPercent(((row.endMs - row.startMs) / axisMs) * 100, 100 - left);
  return `<div class="span-row role-${row.role}${row.error ? ' error' : ''}" data-role="${row.role}" data-name="${escapeHtml(row.name)}" data-start-ms="${row.startMs.toFixed(3)}" data-end-ms="${row.endMs.toFixed(3)}">
<span class="span-label" style="padding-left:${row.depth * INDENT_PX}px">${escapeHtml(row.name)}${row.role === 'producer' && row.service ? ` <small>${escapeHtml(row.service)}</small>` : ''}<small>${escapeHtml(row.detail)}</small></span><span class="span-track"><span class="span-bar" style="left:${left.toFixed(3)}%;width:${width.toFixed(3)}%"></span></span><span class="span-ms">${ms(row.endMs - row.startMs)}</span>
</div>`;
}

function clampPercent(value: number, max = 100): number {
  return Math.min(max, Math.max(0, value));
}

function ms(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`;
}

export const WATERFALL_CSS = `
.traces { margin-top: 14px; background: #fff; padding: 8px 12px; }
.traces h2 { font-size: 15px; margin: 0 0 4px; }
.waterfall { margin: 10px 0 14px; }
.waterfall figcaption { margin-bottom: 4px; }
.span-row { display: grid; grid-template-columns: 440px 1fr 70px; align-items: center; gap: 8px; font-size: 12px; }
.span-label { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.span-label small { color: #687078; margin-left: 6px; }
.span-track { position: relative; height: 12px; background: #f2f3f3; }
.span-bar { position: absolute; top: 1px; bottom: 1px; min-width: ${MIN_BAR_PX}px; background: #1f77b4; }
.role-producer .span-bar { background: #9467bd; }
.role-invocation .span-bar, .role-batch .span-bar { background: #aab7b8; }
.role-request .span-bar, .role-shared-request .span-bar { background: #2ca02c; }
.role-partition-requests .span-bar { background: repeating-linear-gradient(90deg, #98df8a 0 4px, #fff 4px 6px); }
.span-row.error .span-bar { background: #d62728; }
.span-ms { text-align: right; color: #414750; }
`;

export const WATERFALL_SCRIPT = `
(function () {
  document.querySelectorAll('figure.waterfall').forEach(function (figure) {
    figure.querySelectorAll('.span-row').forEach(function (row) {
      var track = row.querySelector('.span-track').getBoundingClientRect();
      var bar = row.querySelector('.span-bar').getBoundingClientRect();
      row.setAttribute('data-bar-px', String(Math.round(bar.width)));
      row.setAttribute('data-bar-left-px', String(Math.round(bar.left - track.left)));
      row.setAttribute('data-track-px', String(Math.round(track.width)));
    });
    figure.setAttribute('data-drawn', 'waterfall');
  });
})();
`;
