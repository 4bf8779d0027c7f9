/**
 * How the consumer's DynamoDB client talks to DynamoDB, in one place: the Lambda entry builds its client
 * from it and the benchmark measures the same settings.
 */
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { InboxConfig } from './config.js';

/** @smithy/node-http-handler's default pool size. */
const SDK_DEFAULT_MAX_SOCKETS = 50;

/** Records the engine can have in flight at once, each holding at most one request. */
export function maxRecordsInFlight(config: Pick<InboxConfig, 'partitionConcurrency' | 'ordering'>): number {
  return config.partitionConcurrency * (config.ordering.by === 'key' ? config.ordering.keyConcurrency : 1);
}

export function dynamoDbClientConfig(
  config: Pick<InboxConfig, 'partitionConcurrency' | 'ordering'>,
): DynamoDBClientConfig {
  // Keep-alive spares a TCP and TLS handshake per request. The SDK's pool of 50 sockets stays the floor (a
  // side-effect may send requests of its own); with ORDERING=key it grows to one socket per record in flight.
  const agent = {
    keepAlive: true,
    maxSockets: Math.max(SDK_DEFAULT_MAX_SOCKETS, maxRecordsInFlight(config)),
  };
  return {
    // The SDK's retry policy differs by version: pin it. A hung request must not eat the whole invocation.
    maxAttempts: 3,
    requestHandler: {
      requestTimeout: 5_000,
      connectionTimeout: 2_000,
      httpsAgent: agent,
      // Plain HTTP only for a local endpoint (DynamoDB Local); the same pool settings.
      httpAgent: agent,
    },
  };
}
