/** The rows a change acts on: the ids given, or every row of the index (`--all`, with `--reason`). */

import type { QuarantineRow } from '../../lambdas/core/quarantine-row.js';
import { UserError } from '../cli/user-error.js';
import { getRow, withInboxAdvice } from '../operator-inbox.js';
import type { OperatorTarget } from '../operator-target.js';
import { noSuchRow } from './quarantine-show.js';

export async function selectRows(
  target: OperatorTarget,
  ids: readonly string[],
  all: boolean,
  reason: string | undefined,
  command: string,
): Promise<QuarantineRow[]> {
  if (all && ids.length > 0) throw new UserError(`${command}: give ids or --all, not both`);
  if (!all && ids.length === 0) {
    throw new UserError(`${command}: which records? give ids (as list prints them) or --all`);
  }
  if (!all && reason !== undefined) throw new UserError(`${command}: --reason goes with --all`);
  return withInboxAdvice(target.inbox, async () => {
    if (all) {
      // One row per id: a copy moved aside by an unfinished replay stands for its id (see getRow).
      const byId = new Map<string, QuarantineRow>();
      for (const row of (await target.inbox.listQuarantined({ reason })).rows) {
        if (!byId.has(row.id) || row.parked) byId.set(row.id, row);
      }
      return [...byId.values()];
    }
    const rows: QuarantineRow[] = [];
    for (const id of new Set(ids)) {
      const row = await getRow(target.inbox, id);
      // Every id is checked before anything changes: a typo stops the whole command.
      if (row === undefined) throw noSuchRow(target, id);
      rows.push(row);
    }
    return rows;
  });
}
