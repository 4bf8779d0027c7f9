/**
 * What the figures mean, written against the numbers of this run: each statement quotes what it rests on,
 * so a rerun on another machine rewrites the reasoning with its own figures.
 */
import { type BenchResults, BUNDLE_LIMIT_BYTES, type ScenarioResult } from './results.js';
import type { ScenarioName } from './scenarios.js';

export function analysisOf(results: BenchResults): string {
  const find = (scenario: ScenarioName, contender: string): ScenarioResult => {
    const found = results.scenarios.find((r) => r.scenario === scenario && r.contender === contender);
    if (!found) throw new Error(`no result for ${contender} on ${scenario}`);
    return found;
  };
  const rps = (r: ScenarioResult) => r.recordsPerSecond.median;
  const { transactionsPerSecond: tx, updatesPerSecond: updates } = results.ceiling;
  const tx1 = tx[1] ?? Number.NaN;
  const tx4 = tx[4] ?? Number.NaN;
  const tx16 = tx[16] ?? Number.NaN;
  const up4 = updates[4] ?? Number.NaN;
  const txNew = find('new-4p', 'inbox-tx');
  const ptNew = find('new-4p', 'powertools');
  const txRedelivery = find('redelivery-4p', 'inbox-tx');
  const ptRedelivery = find('redelivery-4p', 'powertools');
  const txDups = find('dups20-4p', 'inbox-tx');
  const ptDups = find('dups20-4p', 'powertools');
  const txKeys = find('keys-1p', 'inbox-tx');
  const perKeyKeys = find('keys-1p', 'inbox-tx-per-key');
  const cache = results.ablations.find((a) => a.variant.contender.includes('completed-key cache'));
  const keepAlive = results.ablations.find((a) => a.variant.contender.includes('keep-alive'));
  const wideKeys = results.ablations.find((a) => a.variant.contender.includes('KEY_CONCURRENCY'));
  const change = (a: { baseline: ScenarioResult; variant: ScenarioResult } | undefined) =>
    a ? `${((rps(a.variant) / rps(a.baseline) - 1) * 100).toFixed(0)}%` : 'n/a';
  /** A change smaller than the baseline's own spread across runs says nothing. */
  const withinNoise = (
    a: { baseline: ScenarioResult; variant: ScenarioResult } | undefined,
    main: ScenarioResult,
  ) =>
    a !== undefined &&
    Math.abs(rps(a.variant) - rps(a.baseline)) < main.recordsPerSecond.max - main.recordsPerSecond.min;
  const keepAliveCpu = keepAlive
    ? `${keepAlive.baseline.cpuMicrosecondsPerRecord.toFixed(0)} to ${keepAlive.variant.cpuMicrosecondsPerRecord.toFixed(0)}`
    : 'n/a';
  const range = (r: ScenarioResult) =>
    `${r.recordsPerSecond.min.toFixed(0)}–${r.recordsPerSecond.max.toFixed(0)}`;

  return `**Requests.** A new record costs inbox-tx ${txNew.requestsPerRecord.toFixed(2)} request (one
TransactWriteItems: the inbox row written COMPLETED with the two updates), Powertools
${ptNew.requestsPerRecord.toFixed(2)} (claim, two updates, complete). A redelivered batch costs inbox-tx
${txRedelivery.requestsPerRecord.toFixed(3)} requests per record (every key is in the container's cache of completed
keys) against Powertools' ${ptRedelivery.requestsPerRecord.toFixed(2)} (a refused claim each). With 20% in-batch
duplicates inbox-tx sends ${txDups.requestsPerRecord.toFixed(3)} per record, which is exactly its share of distinct
events: a copy waits for its first copy and costs nothing; Powertools sends ${ptDups.requestsPerRecord.toFixed(2)},
a refused claim per copy (${ptDups.refusedPerRecord.toFixed(3)} per record).

**Throughput on DynamoDB Local, and why it is bounded.** DynamoDB Local hardly runs transactions in
parallel: ${tx1.toFixed(0)} TransactWriteItems/s with one in flight, ${tx4.toFixed(0)} with 4, ${tx16.toFixed(0)} with 16
(table above, ${(tx16 / tx1).toFixed(2)}x for 16 times the concurrency), while single-item updates reach
${up4.toFixed(0)}/s with 4 in flight. On new-4p (4 partitions,
so 4 records in flight for both) the same requests with nothing around them give about ${tx4.toFixed(0)}
transactions/s and ${(up4 / 4).toFixed(0)} four-request records/s, a ratio near ${(tx4 / (up4 / 4)).toFixed(2)}x that no engine can
change much; measured ${(rps(txNew) / rps(ptNew)).toFixed(2)}x (${rps(txNew).toFixed(0)} against ${rps(ptNew).toFixed(0)} records/s; per run
${range(txNew)} and ${range(ptNew)}: Powertools' plain requests spread over DynamoDB Local's threads and speed up
whenever the machine has idle CPU, inbox-tx's transactions cannot).
For the same reason per-key ordering has little to gain on keys-1p here: DynamoDB Local's transactions go
${(tx16 / tx1).toFixed(2)}x as fast with 16 in flight as with 1, and inbox-tx-per-key measured
${(rps(perKeyKeys) / rps(txKeys)).toFixed(2)}x inbox-tx. Neither bound is DynamoDB's: DynamoDB runs
transactions on different items in parallel and a record's time there is its round trips, one for inbox-tx against
four in a row for Powertools, and one per key in flight with ORDERING=key. Those counts are what this benchmark
measures exactly; the 2x and 4x throughput targets cannot be shown on DynamoDB Local and need a run against
DynamoDB itself. What does carry over is the client's own cost: ${txNew.cpuMicrosecondsPerRecord.toFixed(0)} µs of
CPU per new record for inbox-tx against ${ptNew.cpuMicrosecondsPerRecord.toFixed(0)} for Powertools, almost all of it
the SDK serialising and signing requests. A CPU profile of inbox-tx taken while building this bench put the
engine's own modules (decoding, hashing, the batch logic) at about 40 µs per record: each record is decoded,
parsed and hashed once, and its writes marshalled once, by the request that sends them.

**Capacity.** DynamoDB Local reports ${txNew.wcuPerRecord.toFixed(0)} WCU per new inbox-tx record (4 per table a
transaction touches) and ${ptNew.wcuPerRecord.toFixed(0)} for Powertools. DynamoDB documents 2 WCU per item of up to
1 KB in a transaction, so 6 per record on DynamoDB against Powertools' 4: atomicity of the inbox row with the
business writes costs capacity, not requests. Refused writes return no ConsumedCapacity; DynamoDB still charges
them, so Powertools' duplicates cost capacity that the table does not show, and inbox-tx's cached duplicates cost none.

**Optimisations, kept or dropped, as measured.**
- Completed-key cache per container (COMPLETED_KEY_CACHE_SIZE, default 10,000): kept. Without it a redelivered
  record costs ${cache ? cache.variant.requestsPerRecord.toFixed(2) : 'n/a'} request per record (a refused transaction)
  and redelivery-4p runs at ${cache ? rps(cache.variant).toFixed(0) : 'n/a'} records/s; with it
  ${cache ? cache.baseline.requestsPerRecord.toFixed(3) : 'n/a'} and ${cache ? rps(cache.baseline).toFixed(0) : 'n/a'} records/s.
- Per-key ordering (ORDERING=key): kept as an opt-in, off by default. Here it measured
  ${(rps(perKeyKeys) / rps(txKeys)).toFixed(2)}x inbox-tx on keys-1p; DynamoDB Local alone allows ${(tx16 / tx1).toFixed(2)}x. What it buys is
  requests in flight, which pays where each request waits on the network, i.e. on DynamoDB; this run cannot
  measure that. KEY_CONCURRENCY=64 instead of the default 16: ${change(wideKeys)} records/s, ${withinNoise(wideKeys, perKeyKeys) ? 'within' : 'beyond'}
  the run-to-run spread of inbox-tx-per-key on keys-1p (${range(perKeyKeys)}); the default stays 16, since sockets
  and memory grow with it and this run cannot show what it buys.
- In-batch duplicate collapsing (already in the engine): kept; its copies cost no request (dups20-4p above).
- Keep-alive, with the pool sized to the records in flight (the SDK's 50 sockets at least, more with
  ORDERING=key): kept. Without it every request opens a connection: client CPU per new record goes from
  ${keepAliveCpu} µs and records/s changes by ${change(keepAlive)}, ${withinNoise(keepAlive, txNew) ? 'within' : 'beyond'} the
  run-to-run spread of inbox-tx on new-4p (${range(txNew)}). A loopback connection is cheap; against DynamoDB each
  one also costs a TCP and a TLS handshake.
- Group commit (several records in one TransactWriteItems) was tried in a separate probe, not in this run, and
  not built: DynamoDB Local's cost grows with a transaction's items (33 records in one transaction went about
  twice as fast as 33 transactions), DynamoDB would gain little (a record still waits for its own commit), and
  one record's failed condition would cancel and retry its neighbours.

${bundleParagraph(results)}`;
}

function bundleParagraph(results: BenchResults): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const sum = (pattern: RegExp) =>
    results.bundle.byPackage
      .filter((part) => pattern.test(part.name))
      .reduce((total, part) => total + part.bytes, 0);
  const credentialBytes = sum(/credential-provider|nested-clients|token-providers|xml-builder/);
  const powertoolsBytes = sum(/^@aws-lambda-powertools\//);
  const sdkDefault = results.defaultCredentialsBundle;
  const saving = sdkDefault
    ? `${kb(sdkDefault.bytes)} with the SDK's default credential chain, so the alias saves ${kb(sdkDefault.bytes - results.bundle.bytes)}`
    : 'the build with the default chain was not measured';
  return `**Bundle.** ${kb(results.bundle.bytes)} as deployed${
    results.bundle.bytes <= BUNDLE_LIMIT_BYTES ? ', under the 300 KB target' : ', over the 300 KB target'
  }; ${saving}. The SDK's default Node.js credential chain carries SSO, INI profiles, credential processes, web
identity and instance metadata, with the STS, SSO and sign-in clients and the XML protocol behind them: code a Lambda
function never runs. Lambda puts the role's credentials in the environment, so lib/bundling.ts aliases
\`@aws-sdk/credential-provider-node\` to lambdas/core/lambda-credential-provider.ts (environment, then the container
endpoint); test/integration/core/lambda-credential-provider.test.ts builds that bundle and runs a batch with it.
The credential packages left in the deployed bundle weigh ${kb(credentialBytes)}; Powertools Logger and Metrics
stay (${kb(powertoolsBytes)} together).`;
}
