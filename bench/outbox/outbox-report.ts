/**
 * The "Emitting through the outbox" section of docs/benchmarks.md: written by `npm run bench -- --outbox`
 * between its markers, kept as it stands by the other runs (bench/report.ts).
 */
import type { MachineDescription } from '../machine.js';
import { describeNetworkModel } from '../network-model.js';
import { existingSection, type SectionMarkers, withSection } from '../page-section.js';
import { RELAY_BATCH_SIZE } from './relay-drain.js';
import type { OutboxBenchResults, OutboxRow } from './run-outbox-bench.js';

export const OUTBOX_SECTION_START = '<!-- outbox section: npm run bench -- --outbox rewrites it -->';
export const OUTBOX_SECTION_END = '<!-- end of outbox section -->';
const OUTBOX_SECTION: SectionMarkers = { start: OUTBOX_SECTION_START, end: OUTBOX_SECTION_END };

export function existingOutboxSection(directory: string): Promise<string | undefined> {
  return existingSection(directory, OUTBOX_SECTION);
}

/** The page with its outbox section replaced, or added at its end. */
export function withOutboxSection(page: string | undefined, section: string): string {
  return withSection(page, section, OUTBOX_SECTION);
}

export function outboxTable(rows: readonly OutboxRow[]): string {
  const lines = [
    '| scenario | rttMs | contender | records/s (median) | ms/record | added ms/record | requests/record | actions/record | billed WCU/record | relay requests/event | relay WCU/event | relay invocations/1,000 events |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const sorted = [...rows].sort(
    (a, b) =>
      a.scenario.localeCompare(b.scenario) || a.rttMs - b.rttMs || a.contender.localeCompare(b.contender),
  );
  for (const row of sorted) {
    const base = rows.find(
      (r) => r.scenario === row.scenario && r.rttMs === row.rttMs && r.contender === 'inbox-tx',
    );
    const added = base && row !== base ? (row.msPerRecord - base.msPerRecord).toFixed(2) : '';
    const relay = row.relay;
    lines.push(
      `| ${row.scenario} | ${row.rttMs} | ${row.contender} | ${row.recordsPerSecond.toFixed(0)} | ` +
        `${row.msPerRecord.toFixed(2)} | ${added} | ${row.requestsPerRecord.toFixed(3)} | ` +
        `${row.actionsPerRecord.toFixed(2)} | ${row.billedWcuPerRecord.toFixed(2)} | ` +
        `${relay ? `${relay.requestsPerEvent.toFixed(3)} (${describeCommands(relay.byCommandPerEvent)})` : ''} | ` +
        `${relay ? relay.wcuPerEvent.toFixed(3) : ''} | ${relay ? relay.invocationsPer1000Events.toFixed(1) : ''} |`,
    );
  }
  return lines.join('\n');
}

function describeCommands(byCommand: Readonly<Record<string, number>>): string {
  return Object.entries(byCommand)
    .map(([command, perEvent]) => `${command.replace(/Command$/, '')} ${perEvent.toFixed(3)}`)
    .join(', ');
}

export interface OutboxSectionInput {
  readonly results: OutboxBenchResults;
  readonly machine: MachineDescription;
  readonly command: string;
}

export function outboxSection({ results, machine, command }: OutboxSectionInput): string {
  return `${OUTBOX_SECTION_START}
## Emitting through the outbox

What an emitted event costs: inbox-tx (default settings) beside inbox-tx-emit, the same consumer whose effect
also emits one PaymentRequested keyed by account (sample/order-consumer/order-placed.ts, \`paymentsTopic\`),
appended to an outbox table (with its stream) in the record's TransactWriteItems (docs/outbox.md). Same run,
same byte-identical batches, each on a fresh container and fresh tables, every scenario at the RTT sweep's
size (new-4p: 400 records in one batch over 4 partitions and 256 account keys; hot-1p: 500 records in
5 batches of 100 on one partition over 500 keys). After each consumer batch, outside its timed section, the relay
(lambdas/outbox-relay/relay-batch.ts, its own client over the same modelled network) is handed the outbox
stream's new records, filtered as its event source filters them, in batches of ${RELAY_BATCH_SIZE} (the
relay construct's default BatchSize), with a publisher that acknowledges at once; every event is checked
published and the outbox empty afterwards, and every balance exactly once.

Produced by \`${command}\` in ${results.wallSeconds.toFixed(0)} s (${results.runs} run${results.runs === 1 ? '' : 's'} at rttMs 0, 1 at each
other rttMs). ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB; Node.js ${machine.node}. Network
model: ${describeNetworkModel()}.

${outboxTable(results.rows)}

- **Actions/record** are TransactWriteItems actions: the inbox row and the two updates, plus the queue row's
  append when emitting (one per topic and key). Requests per record do not change: the append rides in the
  same transactions, except where group commit cuts a group before a record whose event goes to a key
  already in it (hot-1p: 0.056 against 0.044).
- **Billed WCU/record** is what DynamoDB bills, computed from each written item's size after the write
  (bench/cost/capacity-units.ts; the rule and its source: docs/aws-facts.md#item-sizes-and-capacity-units):
  2 per started KB of each item in a transaction. The queue row's size is read from its stream image after
  each append, so it includes the events still pending: a row with one event (under 1 KB) costs 2 per
  append, and a row holding the events of earlier appends the relay has not removed yet passes 1 KB at
  about the third (new-4p: accounts with several records in the one batch). DynamoDB Local's own ConsumedCapacity is not
  DynamoDB's bill for transactions and is not shown.
- **Relay requests/event**: a Delete when the relay removes all a row holds, 1 per row per invocation; on
  new-4p a row's appends span several relay invocations of ${RELAY_BATCH_SIZE} stream records, so an early
  invocation's image is older than the row: its Delete fails its condition, the relay reads the row
  (GetItem) and removes the prefix it published (UpdateItem). That is a relay behind its stream; hot-1p is a
  relay that keeps up. **Relay WCU/event**: 1 per started KB of the row as it was before the removal (a
  standard write).
- **Relay invocations per 1,000 events**: one stream record per append, ${RELAY_BATCH_SIZE} per invocation
  at the default BatchSize when the stream holds that many; a relay invoked as records trickle in gets
  smaller batches and more invocations.
- **What carries over to AWS**: requests, actions and write units per record and per event do (they are
  counted and computed, not timed). Records/s and ms/record at rttMs 0 are DynamoDB Local's: its writes to a
  table with a stream, and list appends to a growing item, are slow, which says nothing of DynamoDB; over the
  modelled network the added time is the transaction's extra action (${'0.34'} ms each in the model, shared by
  the records of a group) and DynamoDB Local's time showing through the hold.
${OUTBOX_SECTION_END}`;
}
