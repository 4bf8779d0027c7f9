/** `msk-inbox`: the operator's commands, dispatched by group and name (docs/operate.md). */
import type { CliMain } from '../cli/run-cli.js';
import { UserError } from '../cli/user-error.js';
import { type OperatorIo, PROCESS_IO } from './commands/operator-io.js';
import { quarantineDiscard } from './commands/quarantine-discard.js';
import { quarantineList } from './commands/quarantine-list.js';
import { quarantineReplay } from './commands/quarantine-replay.js';
import { quarantineShow } from './commands/quarantine-show.js';

export const MAIN_HELP = `Usage: msk-inbox <group> <command> [flags]   (--help on any of them)

  quarantine list      the consumer's quarantined records, newest first, and counts per reason
  quarantine show      one row and its record decoded
  quarantine replay    records through the consumer again once the cause is fixed (--dry-run)
  quarantine discard   give up on records: marked discarded, out of the index (--dry-run, --yes)

Replays run through the deployed function (--function NAME, or --stack NAME) or a local --handler FILE.
Coming in phase 2: \`failed-batches list|show|replay\`.
Errors are one line (exit 2 for a mistake you can fix, 1 otherwise); --verbose shows stack traces.`;

export const QUARANTINE_HELP = `Usage: msk-inbox quarantine <list|show|replay|discard> [flags]

${MAIN_HELP.split('\n').slice(2, 6).join('\n')}`;

type Command = (argv: readonly string[], io: OperatorIo) => Promise<number>;

const QUARANTINE_COMMANDS: Record<string, Command> = {
  list: quarantineList,
  show: quarantineShow,
  replay: quarantineReplay,
  discard: quarantineDiscard,
};

const isHelp = (arg: string | undefined) =>
  arg === undefined || arg === '--help' || arg === '-h' || arg === 'help';

/** Runs one command line; resolves with the exit code. */
export async function runOperator(argv: readonly string[], io: OperatorIo = PROCESS_IO): Promise<number> {
  const [group, name, ...rest] = argv;
  if (isHelp(group)) {
    io.print(MAIN_HELP);
    return 0;
  }
  if (group === 'failed-batches') throw new UserError('failed-batches is not there yet (phase 2)');
  if (group !== 'quarantine') throw new UserError(`unknown command ${group}: msk-inbox --help lists them`);
  if (isHelp(name)) {
    io.print(QUARANTINE_HELP);
    return 0;
  }
  const command = QUARANTINE_COMMANDS[name ?? ''];
  if (command === undefined) {
    throw new UserError(`unknown command quarantine ${name}: msk-inbox quarantine --help lists them`);
  }
  return command(rest, io);
}

export const OPERATOR_CLI: CliMain = { name: 'msk-inbox', run: (argv) => runOperator(argv) };
