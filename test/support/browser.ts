/**
 * The browser test (test/e2e/dashboard-browser.test.ts) opens the local dashboard in headless Chromium:
 * Debian's `chromium` (.ci/run installs it where missing). Where it is not on the PATH the test is skipped,
 * and the run says why in one line (test/support/browser-setup.ts), unless REQUIRE_BROWSER_VARIABLE is set,
 * as .ci/run does: then it runs and fails, so CI never skips it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { findOnPath } from '../../local/process/find-on-path.js';

export const REQUIRE_BROWSER_VARIABLE = 'MSK_INBOX_REQUIRE_BROWSER';

const CHROMIUM = 'chromium';

export const chromiumPath = findOnPath(CHROMIUM);

/** Pass to `describe.skipIf`. */
export const skipBrowserTests = process.env[REQUIRE_BROWSER_VARIABLE] !== '1' && chromiumPath === undefined;

export const BROWSER_SKIP_NOTICE = `chromium not found: the dashboard's browser test (test/e2e/dashboard-browser.test.ts) is skipped; apt-get install chromium runs it (CI sets ${REQUIRE_BROWSER_VARIABLE}=1, which fails it instead)`;

/**
 * No network, no profile, no GPU: what works in a container and in CI. Every host name resolves to
 * nothing, so a page that reached for a CDN would fail to draw: the dashboard's browser test is also its
 * offline test (https://www.chromium.org/developers/design-documents/network-stack/socks-proxy/ documents
 * --host-resolver-rules).
 */
const HEADLESS_FLAGS = [
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Opens a local page, lets its scripts run (up to `budgetMs` of virtual time), and returns the DOM as
 * drawn, or writes a screenshot: Chromium's own command-line modes, so no driver is needed.
 */
export async function headlessChromium(
  page: string,
  mode: { kind: 'dump-dom' } | { kind: 'screenshot'; path: string; width: number; height: number },
  budgetMs = 10_000,
): Promise<string> {
  if (chromiumPath === undefined) throw new Error(`${CHROMIUM} is not on the PATH`);
  const profile = await mkdtemp(join(tmpdir(), 'msk-inbox-chromium-'));
  try {
    const args = [
      ...HEADLESS_FLAGS,
      `--user-data-dir=${profile}`,
      `--virtual-time-budget=${budgetMs}`,
      ...(mode.kind === 'dump-dom'
        ? ['--dump-dom']
        : [`--screenshot=${mode.path}`, `--window-size=${mode.width},${mode.height}`, '--hide-scrollbars']),
      pathToFileURL(page).href,
    ];
    const { stdout } = await promisify(execFile)(chromiumPath, args, {
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}
