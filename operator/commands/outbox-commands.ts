/**
 * `msk-inbox outbox list | quarantined | republish`: the events a consumer's effects emitted and the relay
 * has not published (docs/operate.md#outbox), on DynamoDB or Postgres alike (operator/outbox/).
 */
import { parseCommandLine, positiveIntegerFlag } from '../cli/parse-flags.js';
import { UserError } from '../cli/user-error.js';
import {
  EVENT_ID_PATTERN,
  type OutboxEventPlace,
  type RepublishOutcome,
  withOutboxAdvice,
} from '../outbox/operator-outbox.js';
import {
  OUTBOX_COMMON_HELP,
  OUTBOX_FLAGS,
  type OutboxTarget,
  withOutboxTarget,
} from '../outbox/outbox-target.js';
import { ageText, bytesText, tableText, whenText } from '../table-text.js';
import type { OperatorIo } from './operator-io.js';

export const OUTBOX_LIST_HELP = `Usage: msk-inbox outbox list [--consumer C] [--limit N] [flags]

Lists the unpublished events per key, the key waiting longest first: consumer, topic, Kafka key, how
many events and bytes are pending, how long the oldest has waited, and the id of the key's next event;
then the totals over every key.

  --limit N   show N keys at most (default 50; the totals cover every key)

${OUTBOX_COMMON_HELP}`;

export const OUTBOX_QUARANTINED_HELP = `Usage: msk-inbox outbox quarantined [--consumer C] [--limit N] [flags]

Lists the events the relay set aside because Kafka refused them for good (too large for the topic, a
topic that does not exist), oldest first: id, consumer, topic, key, reason, Kafka's error, when.

  --limit N   show N events at most (default 50)

${OUTBOX_COMMON_HELP}`;

export const OUTBOX_REPUBLISH_HELP = `Usage: msk-inbox outbox republish EVENT-ID [--consumer C] [flags]

A quarantined event, once its cause is fixed, goes back to the END of its key's queue, in one
transaction with its removal from quarantine: it is published AFTER the key's events that came
since, not in its original place. An event still pending on DynamoDB (the relay was down longer than
the stream's 24 hours) gets its queue row touched, so the stream hands the row to the relay again; on
Postgres the relay polls, and nothing needs doing.

${OUTBOX_COMMON_HELP}`;

const DEFAULT_LIMIT = 50;
/** Kafka's error, cut for a table row: `outbox quarantined --json` has it whole. */
const ERROR_COLUMN_CHARS = 60;

const LIST_FLAGS = { ...OUTBOX_FLAGS, limit: { type: 'string' } } as const;

export async function outboxList(argv: readonly string[], io: OperatorIo): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, LIST_FLAGS, 'msk-inbox outbox list --help');
  if (values.help) return help(io, OUTBOX_LIST_HELP);
  if (positionals.length > 0) throw new UserError(`list takes no ids (got ${positionals[0]})`);
  const limit = positiveIntegerFlag('limit', values.limit as string | undefined, DEFAULT_LIMIT);
  return withOutboxTarget(values, async ({ consumer, outbox }) => {
    const listing = await withOutboxAdvice(outbox, () => outbox.pendingKeys({ consumer, limit }));
    const now = io.nowMs();
    const age = (at: number | undefined) => (at === undefined ? undefined : now - at);
    if (values.json) {
      const keys = listing.keys.map((key) => ({ ...key, oldestAgeMs: age(key.oldestAtMs) }));
      const total = { ...listing.total, oldestAgeMs: age(listing.total.oldestAtMs) };
      io.print(JSON.stringify({ consumer: consumer ?? null, keys, total }, null, 2));
      return 0;
    }
    if (listing.total.keys === 0) {
      io.print(`no unpublished events ${whose(consumer)} in ${outbox.describe()}`);
      return 0;
    }
    io.print(
      tableText(
        ['CONSUMER', 'TOPIC', 'KEY', 'PENDING', 'BYTES', 'OLDEST', 'NEXT EVENT'],
        listing.keys.map((key) => [
          key.consumer,
          key.topic,
          shortText(JSON.stringify(key.key), 40),
          String(key.events),
          bytesText(key.bytes),
          ageText(age(key.oldestAtMs)),
          key.headId ?? '-',
        ]),
      ),
    );
    const { total } = listing;
    const shown = listing.keys.length < total.keys ? ` (${listing.keys.length} shown: --limit)` : '';
    io.print(
      `\n${total.keys} keys${shown}, ${total.events} events (${bytesText(total.bytes)}) unpublished; the oldest waited ${ageText(age(total.oldestAtMs))}`,
    );
    return 0;
  });
}

export async function outboxQuarantined(argv: readonly string[], io: OperatorIo): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, LIST_FLAGS, 'msk-inbox outbox quarantined --help');
  if (values.help) return help(io, OUTBOX_QUARANTINED_HELP);
  if (positionals.length > 0) throw new UserError(`quarantined takes no ids (got ${positionals[0]})`);
  const limit = positiveIntegerFlag('limit', values.limit as string | undefined, DEFAULT_LIMIT);
  return withOutboxTarget(values, async ({ consumer, outbox }) => {
    const listing = await withOutboxAdvice(outbox, () => outbox.quarantined({ consumer, limit }));
    if (values.json) {
      io.print(JSON.stringify({ consumer: consumer ?? null, ...listing }, null, 2));
      return 0;
    }
    if (listing.total === 0) {
      io.print(`no quarantined outbox events ${whose(consumer)} in ${outbox.describe()}`);
      return 0;
    }
    io.print(
      tableText(
        ['ID', 'CONSUMER', 'TOPIC', 'KEY', 'REASON', 'QUARANTINED', 'ERROR'],
        listing.events.map((event) => [
          event.id,
          event.consumer,
          event.topic,
          shortText(JSON.stringify(event.key), 40),
          event.reason,
          whenText(event.quarantinedAtMs),
          shortText(event.error.replace(/\s+/g, ' '), ERROR_COLUMN_CHARS),
        ]),
      ),
    );
    const shown = listing.events.length < listing.total ? ` (${listing.events.length} shown: --limit)` : '';
    io.print(
      `\n${listing.total} quarantined${shown}: \`msk-inbox outbox republish ID\` once the cause is fixed`,
    );
    return 0;
  });
}

export async function outboxRepublish(argv: readonly string[], io: OperatorIo): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, OUTBOX_FLAGS, 'msk-inbox outbox republish --help');
  if (values.help) return help(io, OUTBOX_REPUBLISH_HELP);
  const [id, ...more] = positionals;
  if (id === undefined || more.length > 0) {
    throw new UserError('republish takes one event id, as `msk-inbox outbox quarantined` prints it');
  }
  if (!EVENT_ID_PATTERN.test(id)) {
    throw new UserError(
      `${id} is not an outbox event id (a UUID, as \`msk-inbox outbox quarantined\` prints it)`,
    );
  }
  return withOutboxTarget(values, async (target) => {
    const { outbox, consumer } = target;
    const outcome = await withOutboxAdvice(outbox, () => outbox.republish(id, consumer, io.nowMs()));
    const line = republishLine(target, id, outcome);
    io.print(values.json ? JSON.stringify({ ...outcome, message: line }, null, 2) : line);
    return 0;
  });
}

/** What a person reads; a refusal is a UserError: one line, exit 2. */
export function republishLine(target: OutboxTarget, id: string, outcome: RepublishOutcome): string {
  switch (outcome.kind) {
    case 'republished': {
      const behind =
        outcome.ahead === undefined
          ? ''
          : `, behind ${outcome.ahead} pending event${outcome.ahead === 1 ? '' : 's'}`;
      return `republished ${id} (${place(outcome.event)}): appended at the end of its key's queue${behind}; it now follows the key's later events, not its original place`;
    }
    case 'touched':
      return `touched the queue row of ${id} (${place(outcome.event)}, ${outcome.pending} pending): its stream invokes the relay again, which publishes the key's events in order`;
    case 'pending':
      return `${id} (${place(outcome.event)}) is pending: the Postgres relay polls and publishes it after the key's earlier events, nothing to republish`;
    case 'changed':
      throw new UserError(
        `${id} (${place(outcome.event)}) not republished: ${outcome.detail}; run \`msk-inbox outbox republish ${id}\` again`,
      );
    case 'full':
      throw new UserError(
        `${id} (${place(outcome.event)}) not republished: its key's queue is at its limit of unpublished bytes; wait for the relay, then run this again`,
      );
    case 'unknown':
      throw new UserError(
        `no outbox event ${id} ${whose(target.consumer)} in ${target.outbox.describe()}, neither quarantined nor pending: \`msk-inbox outbox quarantined\` prints the ids`,
      );
  }
}

function place(event: OutboxEventPlace): string {
  return `consumer ${event.consumer}, ${event.topic} key ${shortText(JSON.stringify(event.key), 40)}`;
}

function whose(consumer: string | undefined): string {
  return consumer === undefined ? 'for any consumer' : `for consumer ${consumer}`;
}

function shortText(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
}

function help(io: OperatorIo, text: string): number {
  io.print(text);
  return 0;
}
