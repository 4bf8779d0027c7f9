import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../local/dynamodb-local/server.js';
import { BROKER_SKIP_NOTICE, skipBrokerTests } from './broker.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}

/** One DynamoDB Local for the whole run; each test file creates its own uniquely named tables. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (skipBrokerTests) console.warn(BROKER_SKIP_NOTICE);
  const dynamoDb = await startDynamoDbLocal();
  project.provide('dynamoDbEndpoint', dynamoDb.endpoint);
  return () => dynamoDb.stop();
}
