/**
 * Why the Postgres round trip is read at POSTGRES_READING_RTT_MS and swept as DynamoDB's is, with the published
 * figures it rests on and what of them carries over: the page's text, kept beside the model it explains.
 */
export function postgresModelSources(readingRttMs: number): string {
  return `### Which round trip, and what carries over

A deployed consumer reaches Aurora PostgreSQL through RDS Proxy (lambdas/postgres/connection.ts): every statement
goes Lambda → proxy → writer and back, in the consumer's VPC. The figures are read at rttMs ${readingRttMs}, and the
sweep is DynamoDB's (2, 5, 10, 20):

- AWS, *Amazon RDS FAQs* (https://aws.amazon.com/rds/faqs/), as quoted by Iwata, *RDS Proxyを利用した際のクエリの
  レイテンシーを計測してみた* (Classmethod, 2020), https://dev.classmethod.jp/articles/calc-rds-proxy-latency/:
  "Depending on your workload, Amazon RDS Proxy can add an average of 5 milliseconds of network latency to query or
  transaction response time". **Carried over**: the proxy's cost is per statement and of a few ms, so rttMs
  ${readingRttMs} (a sub-millisecond hop in one AZ plus the proxy's stated average) is the reading point. **Not carried
  over**: a distribution (AWS gives an average "depending on your workload", nothing more). The article measures
  it from a warm Lambda function in the database's AZ (100 queries in a row, connections opened outside the
  handler); its figures are not quoted here, as the copy read for this page stopped before them.
- Elevarq, *Choosing your connection path* (pgagroal-container docs),
  https://www.elevarq.com/docs/pgagroal-container/connection-path: about 1 to 3 ms per statement through RDS
  Proxy, against 0.1 to 0.3 ms through pgagroal and none direct, compounding with the statements a request sends.
  **Carried over**: the premise of the model, a fixed cost per statement, so statements per record decide; 2 ms is
  the low end swept. **Not carried over**: the range itself, a vendor's estimate without a method.
- AWS, *AWS Fault Isolation Boundaries: Availability Zones*,
  https://docs.aws.amazon.com/whitepapers/latest/aws-fault-isolation-boundaries/availability-zones.html: AZs up to
  about 100 km apart, close enough for synchronous replication "with single-digit millisecond latency".
  **Carried over**: a function in another AZ than the proxy or the writer pays a few ms more per statement: rttMs 10,
  and 20 for a slow tail. **Not carried over**: COMMIT's own cost on Aurora, whose storage acknowledges a commit
  once 4 of its 6 copies in 3 AZs have the log (Verbitski et al., *Amazon Aurora: Design Considerations for High
  Throughput Cloud-Native Relational Databases*, SIGMOD 2017): a cross-AZ quorum per COMMIT that the model does
  not add, for want of a published p50 (it would cost one COMMIT per record ungrouped, one per transaction grouped).
- Accomazzo, *What is RDS Proxy? Exploring with benchmarks* (Sequin, 2020), https://blog.sequin.io/rds-proxy:
  a Lambda function opening a connection before each query was what made its queries slow. **Carried over**: the
  contenders keep their pool across invocations, as the store does per execution environment, and connection
  set-up (TCP, TLS, an IAM token) is not modelled: it is a cold start's cost, not a record's.

**What carries over to Aurora**: statements per record, transactions per record and failed statements per record
are the store's protocol around the sample's two statements, counted exactly, the same on any Postgres; records/s over the modelled network, as far
as the model goes (every statement a round trip, no jitter, no COMMIT quorum). **What does not**: records/s at
rttMs 0 and client CPU, which are this machine's (a local PostgreSQL 15 with fsync off, sharing 2 cores with the
consumer and with other work) and not Aurora's storage or Lambda's CPU; lock waits between containers; RDS
Proxy's own queueing and pinning.`;
}
