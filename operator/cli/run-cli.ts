/**
 * How the command-line tools (npm start, npm run bench, npm run soak, msk-inbox) end: a person's mistake or a
 * missing tool is one line with the fix (exit 2); anything else is one line too, with the stack trace
 * only under --verbose or DEBUG (exit 1); a reader that goes away (`npm start | head`) ends the run
 * quietly. Processes the tool started end with it, however it ends (local/process/exit-with-parent.mjs).
 */
import { withoutPackageRoot } from './package-root.js';
import { USAGE_EXIT_CODE, UserError } from './user-error.js';

export interface CliMain {
  /** What the tool is called in its messages, e.g. `npm start`. */
  readonly name: string;
  /** The tool's own work, with its arguments less --verbose; resolves with the exit code. */
  run(argv: string[]): Promise<number>;
  /** A line for stdout after an unexpected failure (the demo's `mismatch: ...`), besides the message. */
  failureLine?(message: string): string;
}

/** 128 + SIGPIPE, as a shell reports a program that wrote to a closed pipe. */
const BROKEN_PIPE_EXIT_CODE = 141;

export function isVerbose(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  const debug = env.DEBUG;
  return (
    argv.includes('--verbose') || (debug !== undefined && debug !== '' && debug !== '0' && debug !== 'false')
  );
}

/** One line (or the stack trace when verbose) for an error, and the exit code it ends the tool with. */
export function describeFailure(
  name: string,
  error: unknown,
  verbose: boolean,
): { readonly text: string; readonly exitCode: number } {
  if (error instanceof UserError) {
    return { text: verbose ? stackOf(error) : `${name}: ${error.message}`, exitCode: USAGE_EXIT_CODE };
  }
  return {
    text: verbose ? stackOf(error) : `${name}: ${messageOf(error)} (--verbose shows the stack trace)`,
    exitCode: 1,
  };
}

export function runCli(main: CliMain, argv: readonly string[] = process.argv.slice(2)): void {
  const verbose = isVerbose(argv);
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      // Processes this tool started end with it (local/process/exit-with-parent.mjs): nothing is left behind.
      if (error.code === 'EPIPE') process.exit(BROKEN_PIPE_EXIT_CODE);
      process.stderr.write(`${describeFailure(main.name, error, verbose).text}\n`);
      process.exit(1);
    });
  }
  main.run(argv.filter((arg) => arg !== '--verbose')).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      const failure = describeFailure(main.name, error, verbose);
      console.error(failure.text);
      if (failure.exitCode !== USAGE_EXIT_CODE && main.failureLine) {
        console.log(main.failureLine(messageOf(error)));
      }
      process.exitCode = failure.exitCode;
    },
  );
}

function messageOf(error: unknown): string {
  const message = withoutPackageRoot(error instanceof Error ? error.message : String(error));
  // One line: multi-line messages (a JVM's output, say) are for --verbose.
  return message.split('\n')[0] ?? message;
}

function stackOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause === undefined ? '' : `\ncaused by: ${stackOf(error.cause)}`;
  return `${error.stack ?? error.message}${cause}`;
}
