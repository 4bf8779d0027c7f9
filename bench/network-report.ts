/**
 * The page's section on the modelled network: the model, the published measurements it rests on (and what
 * of them carries over to this bench), the sweep's figures, and the plot.
 */
import { CONTENDERS } from './contenders/index.js';
import { describeNetworkModel, NETWORK_MODEL } from './network-model.js';
import type { BenchResults, ScenarioResult } from './results.js';
import { HOT_BATCH_RECORDS, SCENARIO_NAMES, SWEEP_RECORDS_PER_PARTITION } from './scenarios.js';
import { TARGET_RTT_MS } from './targets.js';

export function networkSection(results: BenchResults): string {
  const { transactionMs, transactionActionMs, batchItemMs } = NETWORK_MODEL;
  const perRecordTx = (1 + 2) * transactionActionMs;
  return `## Over a modelled network

DynamoDB Local answers in about a millisecond and runs transactions nearly one at a time, so what decides
throughput on DynamoDB (how many round trips a record waits for, and how many are in flight) hardly shows at
rttMs 0. For the sweep, a middleware in every contender's SDK client (bench/network-model.ts; Powertools gets the
same client) holds each response, refusals included, until its modelled round trip has passed since the request
was sent, with a timer, so requests in flight overlap as on a network; every SDK attempt is held:

\`${describeNetworkModel()}\` (ms)

A TransactWriteItems of one new record (inbox row + 2 updates) is then rttMs + ${(transactionMs + perRecordTx).toFixed(2)} ms; a Powertools record is four
single-item round trips in a row (4 × rttMs). The figures come from published measurements of Lambda calling
DynamoDB in its own region:

- Alex DeBrie, *DynamoDB Transactions Performance Testing* (2020),
  https://www.alexdebrie.com/posts/dynamodb-transactions-performance/, results table in
  https://github.com/alexdebrie/dynamodb-performance-testing (put-batch-transaction-performance/README.md):
  a Python (boto3) function in us-east-1 against an on-demand table there, 400 invocations of 10 timed calls
  per configuration. p50 (min, p90, p99) in ms: PutItem 7.55 (5.47, 11.3, 16.2); BatchWriteItem of 5 items
  8.14, of 25 items 10.2; TransactWriteItems of 5 items 25.3 (19.4, 30.7, 92.5), of 25 items 32.1 (23.5, 40.5,
  97.5); of 5 items with a failing condition 25.3. **Carried over**: the base's order (a single-item write, about
  7.5 ms); a transaction's own cost, ${transactionMs} ms (25.3 − 5 × 0.34 − 7.55; its minimum, 19.4 against 5.47, shows the
  same gap), which does not shrink with the client's distance, so it is added to every base swept; ${transactionActionMs} ms per
  transaction action ((32.1 − 25.3) / 20); ${batchItemMs} ms per batch item ((10.2 − 8.14) / 20); a cancelled transaction
  taking as long as a committed one. **Not carried over**: the tails (the model has no jitter: p50s only), boto3's
  client time (the contenders' own SDK work is measured, not modelled), and anything beyond 25 actions: the
  per-action term is extrapolated to the 100 actions allowed since 2022. TransactGetItems was not measured and is
  modelled like TransactWriteItems.
- Yan Cui, *Lambda optimization tip – enable HTTP keep-alive* (2019),
  https://theburningmonk.com/2019/02/lambda-optimization-tip-enable-http-keep-alive/: a Node.js function putting
  one item averaged about 10 ms with keep-alive and 33 ms without. **Carried over**: the base's order for a Node.js
  client (10 ms is the rttMs the targets are read at). **Not carried over**: the 23 ms of connection set-up, since
  every contender keeps connections alive (the SDK v3 default:
  https://docs.aws.amazon.com/sdk-for-javascript/v3/developer-guide/node-reusing-connections.html).
- AWS, *Understanding Amazon DynamoDB latency*, https://aws.amazon.com/blogs/database/understanding-amazon-dynamodb-latency/,
  and https://repost.aws/knowledge-center/dynamodb-high-latency: GetItem and PutItem average single-digit
  milliseconds; CloudWatch's SuccessfulRequestLatency is service-side only, without the network or the client.
  **Carried over**: the range swept (2 to 10 ms for the base, 20 ms for a slow p99 such as DeBrie's 16.2).
  **Not carried over**: service-side figures as round trips, since they leave the network out.
- DynamoDB Developer Guide, *Transactions: how it works*,
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html: up to 100 actions and
  4 MB per TransactWriteItems, every item prepared and then committed (hence 2 WCU per KB). It explains why a
  transaction costs more than a single write and gives no latency; neither does the USENIX ATC 2023 paper
  *Distributed Transactions at Scale in Amazon DynamoDB* (its latency plots have no y-axis values; summary at
  https://muratbuffalo.blogspot.com/2023/08/distributed-transactions-at-scale-in.html).

The model holds rather than adds: the figures above already contain DynamoDB's own service time, so DynamoDB
Local's is hidden under the hold unless it is longer (as it is when Local queues transactions behind one another:
many in flight, or large transactions). What the model leaves out: jitter and tails, throttling, transaction
conflicts between containers, and the Lambda function's slower CPU.

With a modelled network a record costs milliseconds of waiting, so the sweep runs the first
${SWEEP_RECORDS_PER_PARTITION['4p']} records of each partition on the 4-partition scenarios, the first ${SWEEP_RECORDS_PER_PARTITION['keys-1p']} on keys-1p
and the first ${SWEEP_RECORDS_PER_PARTITION['hot-1p']} (${(SWEEP_RECORDS_PER_PARTITION['hot-1p'] ?? 0) / HOT_BATCH_RECORDS} batches) on hot-1p: the very same records, for every contender;
${results.sweepRuns} run${results.sweepRuns === 1 ? '' : 's'} per contender, scenario and rttMs (median). rttMs 0 is the full-size run above.

![records/s against the modelled round trip](benchmarks.svg)

[benchmarks.svg](benchmarks.svg): records/s (log scale) against the base round trip, a panel per scenario.

${sweepTable(results)}
`;
}

function sweepTable(results: BenchResults): string {
  const rtts = [0, ...results.rttSweepMs.filter((rtt) => rtt > 0)];
  const all = [...results.scenarios, ...results.sweep];
  const at = rtts.includes(TARGET_RTT_MS) ? TARGET_RTT_MS : (rtts[rtts.length - 1] ?? 0);
  const find = (scenario: string, contender: string, rttMs: number): ScenarioResult | undefined =>
    all.find((r) => r.scenario === scenario && r.contender === contender && r.rttMs === rttMs);
  const lines = [
    `Records/s (median) at each base round trip, with requests, billed WRU per record and the ratio to Powertools at rttMs ${at}:`,
    '',
    `| scenario | contender | store | ${rtts.map((rtt) => `${rtt} ms`).join(' | ')} | requests/record | WRU/record | × Powertools |`,
    `|---|---|---|${rtts.map(() => '---:').join('|')}|---:|---:|---:|`,
  ];
  for (const scenario of SCENARIO_NAMES) {
    for (const { name } of CONTENDERS) {
      const cells = rtts.map((rtt) => find(scenario, name, rtt)?.recordsPerSecond.median.toFixed(0) ?? '–');
      const there = find(scenario, name, at);
      if (cells.every((cell) => cell === '–')) continue;
      lines.push(
        `| ${scenario} | ${name} | ${there?.store ?? '–'} | ${cells.join(' | ')} | ${there?.requestsPerRecord.toFixed(3) ?? '–'} | ` +
          `${there?.writeUnitsPerRecord?.toFixed(2) ?? '–'} | ${there?.ratioToPowertools.toFixed(2) ?? '–'} |`,
      );
    }
  }
  return lines.join('\n');
}
