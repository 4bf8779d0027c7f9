/**
 * globalSetup of the e2e project (vitest.config.ts), which holds the dashboard's browser test: where
 * chromium is missing, the run says once why it is skipped (test/support/browser.ts).
 */
import { BROWSER_SKIP_NOTICE, skipBrowserTests } from './browser.js';

export default function setup(): void {
  if (skipBrowserTests) console.warn(BROWSER_SKIP_NOTICE);
}
