/**
 * Lambda entry of the sample order consumer (transactional mode). Config and clients are built once per
 * cold start; everything else lives in createHandler so tests run the same chain with their own deps.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readOrderConsumerConfig } from './config.js';
import { createHandler } from './create-handler.js';

export { createHandler } from './create-handler.js';

const config = readOrderConsumerConfig(process.env);

export const handler = createHandler({
  config,
  // The SDK's retry policy differs by version: pin it. A hung request must not eat the whole invocation.
  dynamoDb: new DynamoDBClient({
    maxAttempts: 3,
    requestHandler: { requestTimeout: 5_000, connectionTimeout: 2_000 },
  }),
});
