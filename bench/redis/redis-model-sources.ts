/**
 * Why Redis is swept at the round trips bench/redis/run-redis-bench.ts uses (REDIS_RTT_SWEEP_MS) and read where
 * it is, with the published figures each rests on and what of them carries over: the page's text, kept beside
 * the model it explains.
 */
export interface RedisReadingPoints {
  /** A cache node in the function's own AZ. */
  readonly redisMs: number;
  /** DynamoDB's, as the page reads it elsewhere (bench/targets.ts). */
  readonly dynamoDbMs: number;
}

export function redisModelSources({ redisMs, dynamoDbMs }: RedisReadingPoints): string {
  return `### Which round trip, and what carries over

A deployed Redis consumer runs in the cache's VPC (docs/redis.md) and keeps one TLS connection to it; every store
command is one request and one answer on it. The round trips swept, and what each rests on:

- **0.25 and 0.5 ms: a cache node in the function's Availability Zone** (read at rttMs ${redisMs}). Cachee,
  *Redis ElastiCache Is Slow: 16µs Cache Reads vs 339µs — Benchmark Results* (2026),
  https://cachee.ai/blog/posts/2026-03-29-redis-elasticache-is-slow-16us-cache-reads-vs-339us-benchmark-results:
  from a c7i.metal-48xl instance to a cache.r7g.xlarge node in the same VPC and AZ, \`redis-cli --latency-history\`
  averaged 339 µs per PING (min 112, max 1,847, over 1,489 samples), and \`redis-benchmark\` with 50 clients gave
  GET p50 0.423 ms and p99 1.287 ms. **Carried over**: the order of a same-AZ round trip, a few hundred
  microseconds. **Not carried over**: its tails (the model has no jitter), its client (an EC2 instance, not a
  Lambda function's VPC network interface), whether TLS was on (not stated), and its verdict: the page sells an
  in-process cache and measured ElastiCache to argue against it.
- **1 ms: a cache in another AZ of the region.** A node-based cluster's primary need not be in the function's AZ,
  and ElastiCache Serverless places its nodes itself. AWS, *AWS Fault Isolation Boundaries: Availability Zones*,
  https://docs.aws.amazon.com/whitepapers/latest/aws-fault-isolation-boundaries/availability-zones.html: AZs up to
  about 100 km apart, close enough for synchronous replication "with single-digit millisecond latency".
  **Carried over**: a cross-AZ round trip costs more than a same-AZ one, within a few ms. **Not carried over**:
  a figure for any pair of AZs (none is published); 1 ms is a near pair, 2 ms a farther one.
- **2 and 5 ms: writes that wait for a Multi-AZ transaction log**, as every claim and completion does on MemoryDB
  or on ElastiCache for Valkey created with \`--durability sync\` (the settings on which a failover loses no
  acknowledged claim: docs/redis.md#failover). AWS, *Features of MemoryDB*,
  https://docs.aws.amazon.com/memorydb/latest/devguide/servicename-feature-overview.html: "Microsecond read and
  single-digit millisecond write latencies"; AWS, *ElastiCache durability options*,
  https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/Durability.Options.html (docs/aws-facts.md#elasticache-and-memorydb-what-a-failover-keeps):
  synchronous durability at single-digit millisecond write latency. **Carried over**: a durable write costs
  milliseconds, the order of a DynamoDB write; these are the round trips both stores run at. **Not carried
  over**: a figure within "single-digit" (neither page gives one), and a duplicate's claim being faster there:
  it writes nothing, so it may be answered at read speed, while the model holds every command alike.
- **DynamoDB** is swept as in [Over a modelled network](#over-a-modelled-network), whose sources give a
  single-item write about 7.5 ms (boto3, p50) to 10 ms (Node.js) from Lambda in its region; it is read at rttMs
  ${dynamoDbMs}, as the targets are.

**What carries over to AWS**: commands and requests per record and refused per record, which are each store's
protocol counted exactly (the same on ElastiCache, MemoryDB or a Valkey of one's own, and on DynamoDB); and
ms/record where the modelled round trips dominate, as far as the model goes (every command one round trip, no
jitter, no throttling, no failover): on keys-1p and hot-1p, a record's 2 × rttMs. **What does not**: the rest
of ms/record, wherever a one-partition row is above 2 × rttMs: the local servers' own time (DynamoDB Local is a
JVM), the clients' CPU (the SDK's signing and JSON against ioredis's RESP, on this machine's cores rather than a
Lambda function's) and the waits of a machine shared with other work; and connection set-up (TLS,
authentication), a cold start's cost rather than a record's.`;
}
