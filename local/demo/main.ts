/** `npm start`: the consumer end to end on this machine, verified. Flags: `npm start -- --help`. */
import { ProgressPrinter } from '../../lib/cli/progress-printer.js';
import { runCli } from '../../lib/cli/run-cli.js';
import { demoHelp, parseDemoArgs } from './demo-options.js';
import { runDemo } from './run-demo.js';
import { formatSummary } from './summary.js';

// The pinned SDK warns once per process on Node 20 (docs/toolchain.md#pinned-versions); the notice is not the demo's news.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

runCli({
  name: 'npm start',
  async run(argv) {
    const parsed = parseDemoArgs(argv);
    if (parsed.help) {
      console.log(demoHelp());
      return 0;
    }
    const printer = new ProgressPrinter();
    let result: Awaited<ReturnType<typeof runDemo>>;
    try {
      result = await runDemo(parsed.options, {
        progress: (line) => printer.log(line),
        status: (line) => printer.status(line),
      });
    } finally {
      // A failure's message starts on a line of its own, not after the running count.
      printer.finish();
    }
    console.log(formatSummary(result));
    return result.verification.ok ? 0 : 1;
  },
  failureLine: (message) => `mismatch: the run failed before verification: ${message}`,
});
