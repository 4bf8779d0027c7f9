/**
 * The consumer function's defaults that the benchmark prices (GB-seconds at its memory, Lambda's price for
 * its architecture), in one place: KafkaConsumer deploys them and bench/cost reads them. Importing it loads
 * no aws-cdk-lib.
 */

/** The consumer function's memory in MB when `memorySize` is not set. */
export const DEFAULT_CONSUMER_MEMORY_MB = 1024;

/** The consumer function runs on Graviton: Lambda's arm64 GB-second costs less than x86_64's. */
export const CONSUMER_ARCHITECTURE: 'arm64' | 'x86_64' = 'arm64';
