/**
 * The relay's event filter on the outbox table's stream, written once as Lambda's filter pattern: the
 * relay construct deploys it (lib/outbox-relay.ts) and the local stream mapping applies it, so only a
 * consumer's appends (`change = appended` in the new image of an INSERT or MODIFY) invoke the relay; its
 * own removals and quarantines never do (docs/outbox.md#the-relay).
 */
import { OUTBOX_ATTRIBUTES, OUTBOX_CHANGE } from '../core/outbox-rows.js';

export const RELAY_STREAM_FILTER = {
  eventName: ['INSERT', 'MODIFY'],
  dynamodb: { NewImage: { [OUTBOX_ATTRIBUTES.change]: { S: [OUTBOX_CHANGE.appended] } } },
} as const;
