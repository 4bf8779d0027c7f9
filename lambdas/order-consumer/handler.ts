/**
 * Lambda entry of the sample order consumer (transactional mode). Config and clients are built once per
 * cold start; everything else lives in createHandler so tests run the same chain with their own deps.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dynamoDbClientConfig } from '../core/dynamodb-client-config.js';
import { readOrderConsumerConfig } from './config.js';
import { createHandler } from './create-handler.js';

export { createHandler } from './create-handler.js';

const config = readOrderConsumerConfig(process.env);

export const handler = createHandler({
  config,
  dynamoDb: new DynamoDBClient(dynamoDbClientConfig(config)),
});
