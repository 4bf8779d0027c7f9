import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Fixed fake credentials and one region: DynamoDB Local scopes tables per access key and region. */
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

export function localDynamoDbClient(endpoint: string, maxAttempts = 3): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts });
}
