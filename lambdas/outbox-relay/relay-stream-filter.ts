/**
 * The relay's event filter on the outbox table's stream, written once as Lambda's filter pattern: the
 * relay construct deploys it (lib/outbox-relay.ts) and the local stream mapping applies it, so only a
 * consumer's appends (`change = appended` in the new image) invoke the relay; its own removals (no new
 * image) and quarantines (`published`, `quarantined`) never do. Only the `dynamodb` key: DynamoDB event
 * source mappings filter on nothing else (docs/aws-facts.md#dynamodb-streams-and-lambdas-stream-event-source).
 */
import { OUTBOX_ATTRIBUTES, OUTBOX_CHANGE } from '../core/outbox-rows.js';

export const RELAY_STREAM_FILTER = {
  dynamodb: { NewImage: { [OUTBOX_ATTRIBUTES.change]: { S: [OUTBOX_CHANGE.appended] } } },
} as const;
