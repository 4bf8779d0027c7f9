/** `msk-inbox quarantine discard`: rows marked discarded (who, when, why) and taken out of the index. */

import { INBOX_STATUS } from '../../lambdas/core/inbox-rows.js';
import { parseCommandLine } from '../cli/parse-flags.js';
import { UserError } from '../cli/user-error.js';
import { withInboxAdvice } from '../operator-inbox.js';
import { COMMON_FLAGS, COMMON_HELP, resolveOperatorTarget } from '../operator-target.js';
import { tableText } from '../table-text.js';
import type { OperatorIo } from './operator-io.js';
import { selectRows } from './select-rows.js';

export const DISCARD_HELP = `Usage: msk-inbox quarantine discard (ID... | --all --reason R) [--why TEXT] [--yes] [flags]

Gives up on quarantined records: each row is marked DISCARDED (discarded_at, discarded_by,
discard_reason) and leaves the quarantine index; the row itself stays, for audit.

  --all          every row with --reason R (required with --all, so one command never drops them all)
  --why TEXT     why, kept on the row
  --by NAME      who, kept on the row (default: your OS user name)
  --yes          do not ask for confirmation (needed where no one can answer, e.g. in a script)
  --dry-run      say what would be discarded, change nothing

${COMMON_HELP}`;

export async function quarantineDiscard(argv: readonly string[], io: OperatorIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    {
      ...COMMON_FLAGS,
      all: { type: 'boolean' },
      reason: { type: 'string' },
      why: { type: 'string' },
      by: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
      'dry-run': { type: 'boolean' },
    },
    'msk-inbox quarantine discard --help',
  );
  if (values.help) {
    io.print(DISCARD_HELP);
    return 0;
  }
  const all = values.all === true;
  const reason = values.reason as string | undefined;
  if (all && reason === undefined) {
    throw new UserError('discard --all needs --reason R: list shows the reasons (counts per reason)');
  }
  const target = await resolveOperatorTarget(values);
  const rows = await selectRows(target, positionals, all, reason, 'discard');
  const dryRun = values['dry-run'] === true;
  if (rows.length > 0 && !dryRun && values.yes !== true) {
    const answer = await io.ask(
      `Discard ${rows.length} quarantined record(s) of consumer ${target.consumer}? [y/N] `,
    );
    if (answer === undefined) {
      throw new UserError(
        `discarding ${rows.length} record(s) needs a yes: run it in a terminal, or pass --yes`,
      );
    }
    if (!/^y(es)?$/i.test(answer.trim())) {
      io.note('nothing discarded');
      return 1;
    }
  }
  const by = {
    who: (values.by as string | undefined) ?? io.user(),
    why: (values.why as string | undefined) ?? '',
  };
  const results: { id: string; result: string }[] = [];
  for (const row of rows) {
    if (row.status !== INBOX_STATUS.quarantined || row.parked) {
      results.push({
        id: row.id,
        result: row.parked ? 'replaying: finish the replay first' : `not quarantined (${row.status})`,
      });
    } else if (dryRun) {
      results.push({ id: row.id, result: 'would discard' });
    } else {
      const done = await withInboxAdvice(target.inbox, () =>
        target.inbox.discard(row, { ...by, nowMs: io.nowMs() }),
      );
      results.push({ id: row.id, result: done ? 'discarded' : 'changed meanwhile: not discarded' });
    }
  }
  if (values.json) {
    io.print(JSON.stringify({ consumer: target.consumer, dryRun, results }, null, 2));
  } else {
    io.print(
      results.length === 0
        ? 'nothing to discard'
        : tableText(
            ['ID', 'RESULT'],
            results.map((r) => [r.id, r.result]),
          ),
    );
  }
  const ok = new Set(['discarded', 'would discard']);
  return results.every((r) => ok.has(r.result)) ? 0 : 1;
}
