/**
 * The Powertools contender as a team would deploy it: a Lambda entry whose module scope builds the client and
 * the idempotent function, bundled by the very options our consumer is (lib/bundling.ts), so the bench can
 * weigh and cold-start both the same way (bench/measure/cold-init.ts). Only the bench bundles it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import type { KafkaEvent } from '../../lambdas/core/kafka-event.js';
import { powertoolsContender } from './powertools.js';
import { POWERTOOLS_TABLE_VARIABLE } from './powertools-entry.js';

const container = powertoolsContender.createContainer({
  dynamoDb: new DynamoDBClient(powertoolsContender.clientConfig),
  tables: {
    inbox: '',
    app: requiredVariable('APP_TABLE_NAME'),
    idempotency: requiredVariable(POWERTOOLS_TABLE_VARIABLE),
  },
});

export const handler = (event: KafkaEvent, context: Context) => container.invoke(event, context);

function requiredVariable(name: string): string {
  const value = process.env[name]?.trim();
  if (!value) throw new Error(`${name} is required`);
  return value;
}
