/**
 * The local dashboard in a real browser: a small demo run writes .local-run-like dashboard.html, headless
 * Chromium draws it, and every widget of the dashboard body (synthesized here on its own) is on the page
 * under its title, as a chart with datapoints where a local counterpart exists and saying "no local
 * counterpart" where none does. The screenshot is kept in .cache/ for a person to look at.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { METRICS_NAMESPACE } from '../../lambdas/core/metric-names.js';
import type { DashboardWidget } from '../../local/dashboard/dashboard-body.js';
import { TRACED_RECORDS_SHOWN } from '../../local/dashboard/local-dashboard.js';
import { ROW_PX } from '../../local/dashboard/render-html.js';
import { synthesizeSampleDashboard } from '../../local/dashboard/sample-dashboard.js';
import { DEFAULT_DEMO_OPTIONS } from '../../local/demo/demo-options.js';
import { DEMO_CONSUMER_NAME, type DemoResult, runDemo } from '../../local/demo/run-demo.js';
import { RECORDED_MAPPING_METRICS } from '../../local/esm/mapping-metrics.js';
import { CACHE_DIRECTORY } from '../../local/project-paths.js';
import { headlessChromium, skipBrowserTests } from '../support/browser.js';

const SCREENSHOT_PATH = join(CACHE_DIRECTORY, 'dashboard-screenshot.png');

interface DrawnWidget {
  readonly attributes: Readonly<Record<string, string>>;
  readonly html: string;
}

/** The page's widgets as the browser left them: each section's attributes and inner HTML. */
function drawnWidgets(dom: string): DrawnWidget[] {
  return [...dom.matchAll(/<section\b([^>]*)>([\s\S]*?)<\/section>/g)].map(
    ([, attributes = '', html = '']) => ({
      attributes: Object.fromEntries(
        [...attributes.matchAll(/([\w-]+)="([^"]*)"/g)].map(([, name = '', value = '']) => [
          name,
          decode(value),
        ]),
      ),
      html,
    }),
  );
}

interface DrawnWaterfall {
  readonly attributes: Readonly<Record<string, string>>;
  readonly rows: readonly Readonly<Record<string, string>>[];
}

/** The traces' figures as the browser left them: each figure's attributes and its rows'. */
function drawnWaterfalls(dom: string): DrawnWaterfall[] {
  return [...dom.matchAll(/<figure class="waterfall"([^>]*)>([\s\S]*?)<\/figure>/g)].map(
    ([, attributes = '', html = '']) => ({
      attributes: attributesOf(attributes),
      rows: [...html.matchAll(/<div class="span-row[^"]*"([^>]*)>/g)].map(([, row = '']) =>
        attributesOf(row),
      ),
    }),
  );
}

function attributesOf(text: string): Record<string, string> {
  return Object.fromEntries(
    [...text.matchAll(/([\w-]+)="([^"]*)"/g)].map(([, name = '', value = '']) => [name, decode(value)]),
  );
}

function decode(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

interface DrawnSeries {
  readonly label: string;
  /** Seconds with a datapoint of the run's own (render-html.ts). */
  readonly datapoints: number;
  /** Pixels of the series' colour in the canvas right after uPlot stroked it. */
  readonly painted: number;
}

function seriesOf(widget: DrawnWidget | undefined): DrawnSeries[] {
  return JSON.parse(widget?.attributes['data-series'] ?? '[]') as DrawnSeries[];
}

/**
 * Series a run may leave empty though the handler or the emulator has a counterpart, each with whether
 * this run produced it, by the run's own counts: a batch failing as a whole, records given up on. Every
 * other series must have datapoints and be painted.
 */
const PRODUCED_WHEN: Readonly<Record<string, (run: DemoResult) => boolean>> = {
  FailedBatches: (run) => (run.functionMetrics.get('FailedBatches') ?? 0) > 0,
  OnFailureDestinationDelivered: (run) => run.esm.destinationBatches > 0,
};

/**
 * Executable references to an http(s) or protocol-relative address: attributes that load (src, href),
 * CSS url() and @import, fetch() and import. A URL in a comment (uPlot's licence) loads nothing.
 */
function networkReferences(html: string): string[] {
  const address = String.raw`\s*["'\x60]?\s*(?:https?:)?\/\/`;
  const patterns = [
    new RegExp(String.raw`\b(?:src|href|action|poster|data)\s*=${address}`, 'gi'),
    new RegExp(String.raw`url\(${address}`, 'gi'),
    new RegExp(`@import${address}`, 'gi'),
    new RegExp(String.raw`\bfetch\(${address}`, 'gi'),
    new RegExp(String.raw`\bimport\s*\(${address}`, 'gi'),
    new RegExp(String.raw`\bimport\b[^;'"\x60]*\bfrom${address}`, 'gi'),
  ];
  return patterns.flatMap((pattern) => [...html.matchAll(pattern)].map((m) => m[0]));
}

/** Whether anything local stands for one of the widget's visible metrics (local/dashboard/local-metrics.ts). */
function hasLocalCounterpart(widget: DashboardWidget): boolean {
  if (widget.type !== 'metric') return false;
  const recorded: readonly string[] = RECORDED_MAPPING_METRICS;
  return widget.series.some(
    (s) =>
      s.kind === 'metric' &&
      s.visible &&
      (s.namespace === METRICS_NAMESPACE || (s.namespace === 'AWS/Lambda' && recorded.includes(s.name))),
  );
}

describe.skipIf(skipBrowserTests)('the local dashboard in headless Chromium', () => {
  let workDirectory: string;
  let result: DemoResult;
  let widgets: readonly DashboardWidget[];
  let drawn: DrawnWidget[];
  let waterfalls: DrawnWaterfall[];

  beforeAll(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'msk-inbox-dashboard-'));
    [result, { widgets }] = await Promise.all([
      runDemo(
        {
          ...DEFAULT_DEMO_OPTIONS,
          source: 'memory',
          events: 400,
          accounts: 40,
          poisonRate: 0.05,
          crashRate: 0.1,
          batchSize: 25,
          batchingWindowMs: 50,
          dynamoDbEndpoint: inject('dynamoDbEndpoint'),
        },
        { workDirectory },
      ),
      synthesizeSampleDashboard(DEMO_CONSUMER_NAME),
    ]);
    const rows = Math.max(...widgets.map((w) => w.y + w.height));
    const [dom] = await Promise.all([
      headlessChromium(result.dashboard.path, { kind: 'dump-dom' }),
      headlessChromium(result.dashboard.path, {
        kind: 'screenshot',
        path: SCREENSHOT_PATH,
        width: 1400,
        height: rows * ROW_PX + 200,
      }),
    ]);
    drawn = drawnWidgets(dom);
    waterfalls = drawnWaterfalls(dom);
  }, 180_000);

  afterAll(async () => {
    await rm(workDirectory, { recursive: true, force: true });
  });

  it('draws every widget of the dashboard body, in its order, under its title', () => {
    expect(drawn.map((w) => w.attributes['data-title'])).toEqual(widgets.map((w) => w.title ?? ''));
    expect(drawn.filter((w) => w.attributes['data-drawn'] === 'pending')).toEqual([]);
  });

  it('draws a painted chart for each widget a local counterpart exists for, and says so for the others', () => {
    const outcome = widgets.map((widget, index) => {
      const page = drawn[index];
      const canvas = page?.html.includes('<canvas') ?? false;
      const painted = seriesOf(page).some((s) => s.painted > 0);
      const kind = page?.attributes['data-drawn'];
      return `${widget.title ?? widget.type}: ${kind === 'chart' && canvas && painted ? 'chart with data' : kind}`;
    });
    const expected = widgets.map(
      (widget) =>
        `${widget.title ?? widget.type}: ${
          widget.type === 'text'
            ? 'text'
            : widget.type === 'alarm'
              ? 'alarms'
              : hasLocalCounterpart(widget)
                ? 'chart with data'
                : 'no-local-counterpart'
        }`,
    );
    expect(outcome).toEqual(expected);
    expect(drawn.find((w) => w.attributes['data-drawn'] === 'no-local-counterpart')?.html).toContain(
      'no local counterpart',
    );
  });

  it("draws every series with a local counterpart: seconds with the run's own datapoints, its colour on the canvas", () => {
    const report = (title: string, s: DrawnSeries) =>
      `${title} / ${s.label}: ${s.datapoints > 0 ? 'datapoints' : 'none'}, ${s.painted > 0 ? 'painted' : 'not painted'}`;
    const series = drawn.flatMap((w) =>
      w.attributes['data-drawn'] === 'chart'
        ? seriesOf(w).map((s) => ({ title: w.attributes['data-title'] ?? '', series: s }))
        : [],
    );
    expect(series.length).toBeGreaterThan(0);
    expect(series.map(({ title, series: s }) => report(title, s))).toEqual(
      series.map(({ title, series: s }) =>
        PRODUCED_WHEN[s.label]?.(result) === false
          ? report(title, { ...s, datapoints: 0, painted: 0 })
          : report(title, { ...s, datapoints: 1, painted: 1 }),
      ),
    );
  });

  it('refers to nothing on the network: no src, href, url(), fetch or import of an http(s) address', async () => {
    const html = await readFile(result.dashboard.path, 'utf8');
    expect(networkReferences(html)).toEqual([]);
    // The check itself finds what a CDN build would have.
    expect(
      networkReferences(
        '<script src="https://cdn.example/u.js"></script><link href=//cdn.example/u.css><style>a{background:url( "http://x/y.png")}</style><script>fetch(`https://x`);import("https://x/m.js")</script>',
      ),
    ).toHaveLength(5);
  });

  it('shows the Quarantined alarm in ALARM on the poison records, with when it fired', () => {
    const alarms = drawn.find((w) => w.attributes['data-drawn'] === 'alarms')?.html ?? '';
    expect(alarms).toMatch(
      /<tr class="alarm"><td>Quarantined<\/td><td>ALARM<\/td><td>fired at \+\d+\.\d s<\/td>/,
    );
  });

  it("draws the slowest records' traces: the producer's span linked, the invocation, the batch, the record and its DynamoDB requests", () => {
    expect(result.dashboard.traces?.recordSpans).toBeGreaterThan(0);
    expect(waterfalls).toHaveLength(TRACED_RECORDS_SHOWN);
    const durations = waterfalls.map((figure) => Number(figure.attributes['data-duration-ms']));
    expect(durations).toEqual([...durations].sort((a, b) => b - a));
    for (const figure of waterfalls) {
      expect(figure.attributes['data-drawn'], figure.attributes['data-record']).toBe('waterfall');
      const roles = figure.rows.map((row) => row['data-role']);
      expect(roles.slice(0, 4), figure.attributes['data-record']).toEqual([
        'producer',
        'invocation',
        'batch',
        'record',
      ]);
      const requests = figure.rows.filter(
        (row) => row['data-role'] === 'request' || row['data-role'] === 'shared-request',
      );
      // A record that writes commits in a request of its own or a group's; a duplicate known to the container makes none.
      if (figure.attributes['data-outcome'] === 'processed') {
        expect(
          requests.map((row) => row['data-name']),
          figure.attributes['data-record'],
        ).toContain('DynamoDB.TransactWriteItems');
      }
      for (const row of figure.rows.filter((r) => r['data-role'] !== 'producer')) {
        const left = Number(row['data-bar-left-px']);
        const width = Number(row['data-bar-px']);
        const track = Number(row['data-track-px']);
        // Laid out by the browser: a bar of its own width, inside the invocation's axis.
        expect(width, `${row['data-name']} in ${figure.attributes['data-record']}`).toBeGreaterThan(0);
        expect(left).toBeGreaterThanOrEqual(0);
        expect(left + width).toBeLessThanOrEqual(track + 1);
      }
      const record = figure.rows.find((row) => row['data-role'] === 'record');
      const invocation = figure.rows.find((row) => row['data-role'] === 'invocation');
      expect(Number(record?.['data-bar-px'])).toBeLessThanOrEqual(Number(invocation?.['data-bar-px']));
    }
  });

  it('saves a screenshot of the page in .cache/', async () => {
    const png = await readFile(SCREENSHOT_PATH);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  });
});
