/**
 * The quarantine row of an event Kafka refused for good (lambdas/core/outbox-rows.ts): the event as the
 * consumer stored it, why, and when. It is written in the same transaction that takes the event out of
 * its queue row (queue-removal.ts), so an event is always in exactly one of the two; the operator tool
 * lists and republishes it from here (docs/outbox.md#poison-events).
 */
import type { Put } from '@aws-sdk/client-dynamodb';
import { utf8Prefix } from '../core/bounded-text.js';
import { OUTBOX_ATTRIBUTES as A, OUTBOX_CHANGE, outboxQuarantineKey } from '../core/outbox-rows.js';
import type { QuarantineCause } from './publish-in-order.js';
import type { PendingEvent, QueueRow } from './queue-row.js';

/** Kafka's message is kept this short (UTF-8 bytes): enough to read, never near the item limit. */
export const QUARANTINE_ERROR_BYTES = 1_024;

export function quarantinePut(
  tableName: string,
  row: QueueRow,
  event: PendingEvent,
  cause: QuarantineCause,
  nowMs: number,
): Put {
  return {
    TableName: tableName,
    // No condition: a retried quarantine of the same event writes the same row again.
    Item: {
      [A.pk]: { S: outboxQuarantineKey(row.consumer, event.id) },
      [A.consumer]: { S: row.consumer },
      [A.topic]: { S: row.topic },
      [A.kafkaKey]: { S: row.kafkaKey },
      [A.event]: { M: event.stored },
      [A.reason]: { S: cause.reason },
      [A.error]: { S: utf8Prefix(cause.message, QUARANTINE_ERROR_BYTES) },
      [A.quarantinedAt]: { N: String(nowMs) },
      // The relay's stream filter lets only `appended` through: writing this never invokes it.
      [A.change]: { S: OUTBOX_CHANGE.quarantined },
    },
  };
}
