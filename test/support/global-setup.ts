import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../local/dynamodb-local/server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}

/** One DynamoDB Local for the whole run; each test file creates its own uniquely named tables. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dynamoDb = await startDynamoDbLocal();
  project.provide('dynamoDbEndpoint', dynamoDb.endpoint);
  return () => dynamoDb.stop();
}
