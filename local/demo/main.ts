/** `npm start`: the consumer end to end on this machine, verified. Flags: `npm start -- --help`. */
import { DemoUsageError, demoHelp, parseDemoArgs } from './demo-options.js';
import { runDemo } from './run-demo.js';
import { formatSummary } from './summary.js';

async function main(): Promise<number> {
  // The pinned SDK warns once per process on Node 20 (docs/toolchain.md#pinned-versions); the notice is not the demo's news.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  let parsed: ReturnType<typeof parseDemoArgs>;
  try {
    parsed = parseDemoArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof DemoUsageError)) throw error;
    console.error(`${error.message}\n\n${demoHelp()}`);
    return 2;
  }
  if (parsed.help) {
    console.log(demoHelp());
    return 0;
  }
  const result = await runDemo(parsed.options, { progress: (line) => console.log(line) });
  console.log(formatSummary(result));
  return result.verification.ok ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    console.log(
      `mismatch: the run failed before verification: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exitCode = 1;
  },
);
