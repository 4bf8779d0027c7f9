/**
 * The contract's effect steps as DynamoDB writes (TransactWriteItems actions on a table keyed by `pk`),
 * for the DynamoDB store and the memory store that models it: a business rule is an action's condition,
 * and its failure a `business-rejected` answer naming the action.
 */
import { expect } from 'vitest';
import type { EffectWrite } from '../../../lambdas/core/effect.js';
import type { EffectStep, EffectVocabulary } from './harness.js';

export function dynamoDbEffects(appTableName: string): EffectVocabulary {
  const write = (step: EffectStep): EffectWrite => {
    switch (step.op) {
      case 'put':
        return { Put: { TableName: appTableName, Item: { pk: step.pk, ...step.attributes } } };
      case 'put-if-absent':
        return {
          Put: {
            TableName: appTableName,
            Item: { pk: step.pk, ...step.attributes },
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': 'pk' },
          },
        };
      case 'require':
        return {
          ConditionCheck: {
            TableName: appTableName,
            Key: { pk: step.pk },
            ConditionExpression: 'attribute_exists(#pk)',
            ExpressionAttributeNames: { '#pk': 'pk' },
          },
        };
      case 'delete':
        return { Delete: { TableName: appTableName, Key: { pk: step.pk } } };
      case 'insert-unique':
        // Only with capability storeConstraints, which DynamoDB lacks: a case asking for it is a bug.
        throw new Error('DynamoDB has no constraints of its own on items: use put-if-absent, a condition');
    }
  };
  return {
    effectOf: (steps) => ({ writes: steps.map(write) }),
    businessRejection: (stepIndex) => ({
      kind: 'business-rejected',
      writeIndex: stepIndex,
      message: expect.any(String),
    }),
  };
}
