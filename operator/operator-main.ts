/** `msk-inbox`: the operator's commands, dispatched by group and name (docs/operate.md). */
import type { CliMain } from './cli/run-cli.js';
import { UserError } from './cli/user-error.js';
import { failedBatchesList } from './commands/failed-batches-list.js';
import { failedBatchesReplay } from './commands/failed-batches-replay.js';
import { failedBatchesShow } from './commands/failed-batches-show.js';
import { type OperatorIo, PROCESS_IO } from './commands/operator-io.js';
import { outboxList, outboxQuarantined, outboxRepublish } from './commands/outbox-commands.js';
import { quarantineDiscard } from './commands/quarantine-discard.js';
import { quarantineList } from './commands/quarantine-list.js';
import { quarantineReplay } from './commands/quarantine-replay.js';
import { quarantineShow } from './commands/quarantine-show.js';
import { localHandlerLoaded } from './local-handler.js';
import { closeOperatorTargets } from './operator-target.js';

export const MAIN_HELP = `Usage: msk-inbox <group> <command> [flags]   (--help on any of them)

  quarantine list      the consumer's quarantined records, newest first, and counts per reason
  quarantine show      one row and its record decoded
  quarantine replay    records through the consumer again once the cause is fixed (--dry-run)
  quarantine discard   give up on records: marked discarded, out of the index (--dry-run, --yes)

  failed-batches list    the batches the mapping sent to its on-failure bucket (--bucket) or folder (--dir)
  failed-batches show    one batch: why it failed, each record decoded, what the inbox holds of it
  failed-batches replay  each record through the consumer again, in offset order per partition (--dry-run)

  postgres migrate         a Postgres inbox's tables made or brought up to date (--print: the SQL)
  postgres delete-expired  a Postgres inbox's expired dedup rows deleted, in bounded batches

  outbox list         the unpublished events per key: how many, how many bytes, how old the oldest is
  outbox quarantined  the events the relay set aside because Kafka refused them for good
  outbox republish    one event back at the end of its key's queue (or a stuck key's row touched)

The inbox is a DynamoDB table (--table), a Postgres schema (--postgres URL) or a Redis server
(--redis URL); --stack NAME reads a table's or a schema's.
The outbox is a DynamoDB table (--outbox-table) or the same Postgres schema.
Replays run through the deployed function (--function NAME, or --stack NAME) or a local --handler FILE.
Errors are one line (exit 2 for a mistake you can fix, 1 otherwise); --verbose shows stack traces.`;

export const QUARANTINE_HELP = `Usage: msk-inbox quarantine <list|show|replay|discard> [flags]

${MAIN_HELP.split('\n').slice(2, 6).join('\n')}`;

export const FAILED_BATCHES_HELP = `Usage: msk-inbox failed-batches <list|show|replay> [flags]

${MAIN_HELP.split('\n').slice(7, 10).join('\n')}`;

export const POSTGRES_GROUP_HELP = `Usage: msk-inbox postgres <migrate|delete-expired> [flags]

${MAIN_HELP.split('\n').slice(11, 13).join('\n')}`;

export const OUTBOX_HELP = `Usage: msk-inbox outbox <list|quarantined|republish> [flags]

${MAIN_HELP.split('\n').slice(14, 17).join('\n')}`;

type Command = (argv: readonly string[], io: OperatorIo) => Promise<number>;

const GROUPS: Record<string, { readonly help: string; readonly commands: Record<string, Command> }> = {
  quarantine: {
    help: QUARANTINE_HELP,
    commands: {
      list: quarantineList,
      show: quarantineShow,
      replay: quarantineReplay,
      discard: quarantineDiscard,
    },
  },
  'failed-batches': {
    help: FAILED_BATCHES_HELP,
    commands: { list: failedBatchesList, show: failedBatchesShow, replay: failedBatchesReplay },
  },
  outbox: {
    help: OUTBOX_HELP,
    commands: { list: outboxList, quarantined: outboxQuarantined, republish: outboxRepublish },
  },
  postgres: {
    help: POSTGRES_GROUP_HELP,
    // Loaded when run, with the `pg` driver: no other command pays for it.
    commands: {
      migrate: async (argv, io) =>
        (await import('./commands/postgres-commands.js')).postgresMigrate(argv, io),
      'delete-expired': async (argv, io) =>
        (await import('./commands/postgres-commands.js')).postgresDeleteExpired(argv, io),
    },
  },
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
  const commands = Object.hasOwn(GROUPS, group ?? '') ? GROUPS[group ?? ''] : undefined;
  if (commands === undefined) throw new UserError(`unknown command ${group}: msk-inbox --help lists them`);
  if (isHelp(name)) {
    io.print(commands.help);
    return 0;
  }
  const command = Object.hasOwn(commands.commands, name ?? '') ? commands.commands[name ?? ''] : undefined;
  if (command === undefined) {
    throw new UserError(`unknown command ${group} ${name}: msk-inbox ${group} --help lists them`);
  }
  try {
    return await command(rest, io);
  } finally {
    // The target's connections (a Postgres pool) would keep the process alive, and a test's next command
    // would find them still open.
    await closeOperatorTargets();
  }
}

export const OPERATOR_CLI: CliMain = {
  name: 'msk-inbox',
  run: async (argv) => {
    try {
      return await runOperator(argv);
    } finally {
      if (localHandlerLoaded()) exitOnceWritten();
    }
  },
};

/**
 * Ends the process once what it wrote is out. A consumer run here (`--handler`) keeps its connections
 * open, a Redis client for ever, so the tool would never end on its own; its exit code is set by then
 * (runCli's handlers run before the next turn of the event loop), and an empty write's callback comes
 * after every write queued before it.
 */
function exitOnceWritten(): void {
  setImmediate(() => process.stdout.write('', () => process.stderr.write('', () => process.exit())));
}
