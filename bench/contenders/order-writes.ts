/**
 * The sample service's two business writes sent as separate UpdateItem requests, the way a side-effect
 * (or a Powertools-wrapped function) applies them. Both non-transactional contenders use this, so they
 * send byte-for-byte the writes the transactional contender commits in its transaction.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EffectWrite } from '../../lambdas/core/effect.js';

export async function sendWritesOneByOne(
  documentClient: DynamoDBDocumentClient,
  writes: readonly EffectWrite[],
): Promise<void> {
  for (const write of writes) {
    if (!('Update' in write)) throw new Error('the order effect only updates items');
    // In order: the second write must not land when the first one failed.
    await documentClient.send(new UpdateCommand(write.Update));
  }
}
