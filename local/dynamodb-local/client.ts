import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LOCAL_ENDPOINT_CREDENTIALS, LOCAL_ENDPOINT_REGION } from '../../operator/local-fallback.js';

/**
 * Fixed fake credentials and one region: DynamoDB Local scopes tables per access key and region. The
 * operator tool's fallback where nothing is configured, so a bare shell's `msk-inbox --endpoint` finds
 * the tables made under them.
 */
export const LOCAL_REGION = LOCAL_ENDPOINT_REGION;
export const LOCAL_CREDENTIALS = LOCAL_ENDPOINT_CREDENTIALS;

export function localDynamoDbClient(endpoint: string, maxAttempts = 3): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts });
}
