/**
 * The local dashboard as one HTML file that works offline: the widgets on CloudWatch's 24-column grid (x,
 * y, width, height of the dashboard body), charts drawn by uPlot (https://github.com/leeoniya/uPlot),
 * whose script and stylesheet are inlined. Once drawn, each widget carries `data-drawn` (chart, text,
 * alarms, no-local-counterpart), and a chart `data-series`: per series, its label, its datapoints (seconds
 * with a value of the run's own, zero fills not counted) and `painted`, the pixels its stroke turned to
 * its colour in the canvas read back (getImageData), before a later series can cover them: what the
 * browser test (test/e2e/dashboard-browser.test.ts) checks was really drawn.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { RecordWaterfall } from '../tracing/waterfall.js';
import type { AlarmEvaluation } from './alarm-evaluation.js';
import { escapeHtml } from './html-text.js';
import { renderWaterfalls, WATERFALL_CSS, WATERFALL_SCRIPT } from './render-waterfall.js';
import type { WidgetData } from './widget-data.js';

export interface DashboardPage {
  readonly title: string;
  /** Lines about the run, shown above the grid. */
  readonly facts: readonly string[];
  readonly widgets: readonly WidgetData[];
  readonly alarms: readonly AlarmEvaluation[];
  /** Seconds since the run's start, one per bucket. */
  readonly seconds: readonly number[];
  /** The slowest records' traces, drawn under the grid, with a line on where they came from. */
  readonly traces?: { readonly waterfalls: readonly RecordWaterfall[]; readonly note: string };
}

/** CloudWatch's palette, in its order. */
const COLORS = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
];

/** Pixels per grid row; CloudWatch's rows are about this tall. The browser test sizes its screenshot by it. */
export const ROW_PX = 38;

export function renderDashboardHtml(page: DashboardPage): string {
  const rows = Math.max(0, ...page.widgets.map((w) => w.y + w.height));
  const charts = page.widgets.map((w) => (w.kind === 'chart' ? { series: w.series } : null));
  const data = JSON.stringify({ seconds: page.seconds, charts }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(page.title)}</title>
<style>${uplotAsset('uPlot.min.css')}</style>
<style>${PAGE_CSS}${page.traces ? WATERFALL_CSS : ''}</style>
</head>
<body>
<header>
<h1>${escapeHtml(page.title)}</h1>
${page.facts.map((fact) => `<p>${escapeHtml(fact)}</p>`).join('\n')}
<p class="alarms-line">${escapeHtml(firedLine(page.alarms))}</p>
</header>
<main class="grid" style="height:${rows * ROW_PX}px">
${page.widgets.map((widget, index) => renderWidget(widget, index)).join('\n')}
</main>
${page.traces ? renderWaterfalls(page.traces.waterfalls, page.traces.note) : ''}
<script type="application/json" id="dashboard-data">${data}</script>
<script>${uplotAsset('uPlot.iife.min.js').replace(/<\/script/gi, '<\\/script')}</script>
<script>${PAGE_SCRIPT}</script>${page.traces ? `\n<script>${WATERFALL_SCRIPT}</script>` : ''}
</body>
</html>
`;
}

/** One line: which alarms would have fired, and when. */
function firedLine(alarms: readonly AlarmEvaluation[]): string {
  const fired = alarms.flatMap((a) =>
    a.kind === 'evaluated' && a.firedAtMs !== undefined
      ? [`${a.alarm.name} at +${seconds(a.firedAtMs)}`]
      : [],
  );
  return fired.length === 0
    ? 'No alarm would have fired.'
    : `Would have fired: ${fired.join(', ')} (into the run; evaluated with each alarm's own period).`;
}

function renderWidget(widget: WidgetData, index: number): string {
  const style = `left:${(widget.x / 24) * 100}%;top:${widget.y * ROW_PX}px;width:${(widget.width / 24) * 100}%;height:${widget.height * ROW_PX}px`;
  const title = widget.title === undefined ? '' : `<h2>${escapeHtml(widget.title)}</h2>`;
  const open = (drawn: string, extra = '') =>
    `<section class="widget ${drawn}" style="${style}" data-widget="${index}" data-title="${escapeHtml(widget.title ?? '')}" data-drawn="${drawn}"${extra}>${title}`;
  switch (widget.kind) {
    case 'text':
      return `${open('text')}<div class="markdown">${markdown(widget.markdown)}</div></section>`;
    case 'no-local-counterpart':
      return `${open('no-local-counterpart')}<p class="none">no local counterpart${widget.metrics.length > 0 ? `: ${escapeHtml(widget.metrics.join(', '))}` : ''}</p></section>`;
    case 'alarms':
      return `${open('alarms')}<table>${widget.alarms.map(alarmRow).join('')}</table></section>`;
    case 'chart': {
      const notes = [
        ...(widget.withoutCounterpart.length > 0
          ? [`no local counterpart: ${widget.withoutCounterpart.join(', ')}`]
          : []),
        ...(widget.annotations.length > 0
          ? [`lines on CloudWatch: ${widget.annotations.map((a) => `${a.label} ${a.value}`).join(', ')}`]
          : []),
      ];
      // data-drawn becomes "chart" once the script has drawn it.
      const legend = widget.series
        .map(
          (s, i) =>
            `<span><i style="background:${COLORS[i % COLORS.length]}"></i>${escapeHtml(s.label)}${s.axis === 'right' ? ' (right)' : ''}</span>`,
        )
        .join('');
      return `${open('pending')}<div class="legend">${legend}</div><div class="chart" data-chart="${index}"></div>${notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join('')}</section>`;
    }
  }
}

function alarmRow(evaluation: AlarmEvaluation): string {
  const { alarm } = evaluation;
  const rule = `${alarm.datapointsToAlarm} of ${alarm.evaluationPeriods} × ${alarm.periodSeconds} s`;
  if (evaluation.kind === 'no-local-counterpart') {
    return `<tr class="na" title="${escapeHtml(evaluation.missing.join(', '))}"><td>${escapeHtml(alarm.name)}</td><td>not evaluated</td><td>no local counterpart</td></tr>`;
  }
  const fired = evaluation.firedAtMs === undefined ? '' : `fired at +${seconds(evaluation.firedAtMs)}`;
  const state = evaluation.firedAtMs === undefined ? evaluation.state : 'ALARM';
  return `<tr class="${state === 'ALARM' ? 'alarm' : 'ok'}"><td>${escapeHtml(alarm.name)}</td><td>${escapeHtml(state)}</td><td>${escapeHtml(fired || rule)}</td></tr>`;
}

/** The little markdown the dashboard's text widgets use: headings, `code`, line breaks. */
function markdown(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const heading = /^(#{1,3})\s+(.*)$/.exec(line);
      const inline = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');
      return heading
        ? `<h${(heading[1] as string).length}>${inline(heading[2] as string)}</h${(heading[1] as string).length}>`
        : `<p>${inline(line)}</p>`;
    })
    .join('');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function uplotAsset(file: string): string {
  const require = createRequire(import.meta.url);
  return readFileSync(require.resolve(`uplot/dist/${file}`), 'utf8');
}

const PAGE_CSS = `
body { font: 13px/1.4 system-ui, sans-serif; margin: 12px; background: #f2f3f3; color: #16191f; }
header h1 { font-size: 18px; margin: 0 0 4px; }
header p { margin: 2px 0; }
.alarms-line { font-weight: 600; }
.grid { position: relative; margin-top: 10px; }
.widget { position: absolute; box-sizing: border-box; padding: 6px 8px; border: 4px solid #f2f3f3; background: #fff; overflow: hidden; }
.widget h2 { font-size: 14px; margin: 0 0 4px; }
.widget.text { background: transparent; }
.markdown h1 { font-size: 18px; margin: 0; } .markdown p { margin: 2px 0; }
.none { color: #687078; font-style: italic; margin-top: 40px; text-align: center; }
.note { color: #687078; font-size: 11px; margin: 2px 0; }
table { border-collapse: collapse; width: 100%; } td { padding: 2px 4px; border-bottom: 1px solid #eaeded; }
tr.alarm td { color: #d13212; font-weight: 600; } tr.ok td:nth-child(2) { color: #1d8102; } tr.na td { color: #687078; }
.uplot { font-family: inherit; }
.legend { font-size: 11px; line-height: 1.3; } .legend span { margin-right: 8px; white-space: nowrap; }
.legend i { display: inline-block; width: 10px; height: 3px; margin: 0 3px 3px 0; vertical-align: middle; }
`;

/**
 * Draws each chart to fit its widget; uPlot's drawAxes and drawSeries hooks
 * (https://github.com/leeoniya/uPlot/tree/master/docs#hooks) read the plot area back before and after each
 * series is stroked, and count the pixels the stroke changed to the series' colour.
 */
const PAGE_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById('dashboard-data').textContent);
  var COLORS = ${JSON.stringify(COLORS)};
  var pending = 0;
  function rgb(hex) { return [1, 3, 5].map(function (i) { return parseInt(hex.slice(i, i + 2), 16); }); }
  // The whole canvas, not the plot area: a line at 0 lies on the plot area's bottom edge, half outside it.
  function plotPixels(u) {
    var canvas = u.ctx.canvas;
    return canvas.width < 1 || canvas.height < 1 ? null : u.ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  }
  // Pixels the stroke changed whose colour is the series' (the canvas is transparent, so getImageData
  // gives an antialiased edge the stroke's colour with a lower alpha).
  function painted(before, after, color) {
    if (before === null || after === null) return 0;
    var c = rgb(color);
    var count = 0;
    for (var p = 0; p < after.length; p += 4) {
      if (after[p] === before[p] && after[p + 1] === before[p + 1] && after[p + 2] === before[p + 2] && after[p + 3] === before[p + 3]) continue;
      var distance = Math.abs(after[p] - c[0]) + Math.abs(after[p + 1] - c[1]) + Math.abs(after[p + 2] - c[2]);
      if (after[p + 3] >= 64 && distance <= 30) count++;
    }
    return count;
  }
  function finished() { if (--pending === 0) document.body.setAttribute('data-ready', 'true'); }
  document.querySelectorAll('[data-chart]').forEach(function (element) {
    var chart = data.charts[Number(element.getAttribute('data-chart'))];
    var widget = element.parentElement;
    var right = chart.series.some(function (s) { return s.axis === 'right'; });
    var drawn = chart.series.map(function (s) { return { label: s.label, datapoints: s.datapoints, painted: 0 }; });
    var last = null;
    var options = {
      width: element.clientWidth || 300,
      height: 120,
      scales: { x: { time: false } },
      axes: [{ label: 'seconds into the run', size: 34, labelSize: 14 }, { size: 64 }].concat(right ? [{ side: 1, scale: 'right', grid: { show: false }, size: 64 }] : []),
      series: [{ label: 's' }].concat(chart.series.map(function (s, i) {
        return { label: s.label, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: true, scale: s.axis === 'right' ? 'right' : 'y' };
      })),
      // The legend is the page's own (above the chart), so the chart's height is known before drawing.
      legend: { show: false },
      hooks: {
        drawAxes: [function (u) { last = plotPixels(u); }],
        drawSeries: [function (u, i) {
          var now = plotPixels(u);
          drawn[i - 1].painted = painted(last, now, COLORS[(i - 1) % COLORS.length]);
          last = now;
        }],
        draw: [function () {
          if (widget.getAttribute('data-drawn') === 'chart') return;
          widget.setAttribute('data-series', JSON.stringify(drawn));
          widget.setAttribute('data-drawn', 'chart');
          widget.classList.remove('pending');
          finished();
        }]
      }
    };
    var values = [data.seconds].concat(chart.series.map(function (s) { return s.values; }));
    // The widget is the chart's offsetParent: offsetTop is the height of its title and legend.
    var used = element.offsetTop;
    widget.querySelectorAll('.note').forEach(function (n) { used += n.offsetHeight; });
    var height = widget.clientHeight - used - 16;
    options.height = Math.max(60, height);
    pending++;
    new uPlot(options, values, element);
  });
  if (pending === 0) document.body.setAttribute('data-ready', 'true');
})();
`;
