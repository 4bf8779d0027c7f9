import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      // Tests read outcomes through the telemetry port; the EMF test turns metrics back on.
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
  },
});
