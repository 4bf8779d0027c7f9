/**
 * Every key the Redis store and the operator tool (operator/redis-operator-inbox.ts) keep, named once
 * (docs/redis.md). A key's hash tag, the part in braces, picks its slot in cluster mode:
 *
 * - an event's dedup row, `msk-inbox:{<consumer>#<dedup key>}`: the whole name is the tag, so events
 *   spread over every slot;
 * - everything an operator deals with shares the consumer's tag `{<consumer>!quarantine}`, so a script
 *   may touch an entry and the indexes that list it in one step: the quarantine index (a sorted set by
 *   time), each entry `...}:<coordinates>`, and the operator's own keys `...}!<word>...`.
 *
 * Consumer names hold neither braces nor `#` nor `!` (CONSUMER_NAME_PATTERN), and an entry's key has `:`
 * right after the tag where the operator's keys have `!`, so no two kinds of key can collide, whatever
 * coordinates a record came with.
 */
import { boundedString } from '../core/bounded-text.js';
import { QUARANTINE_LIMITS } from '../core/quarantine-row.js';

/** One event's dedup row. */
export function redisDedupRowKey(consumer: string, dedupKey: string): string {
  return `msk-inbox:{${consumer}#${dedupKey}}`;
}

/** The consumer's quarantine index: its QUARANTINED entries (and their parked copies), scored by time. */
export function redisQuarantineIndexKey(consumer: string): string {
  return `msk-inbox:{${consumer}!quarantine}`;
}

/** A record's quarantine entry: the key part is bounded whatever a caller passes, as on DynamoDB. */
export function redisQuarantineEntryKey(consumer: string, coordinates: string): string {
  return `${redisQuarantineIndexKey(consumer)}:${boundedString(coordinates, QUARANTINE_LIMITS.keyBytes).text}`;
}

/** Where an entry waits while `msk-inbox quarantine replay` runs its record (OperatorInbox.park). */
export function redisParkedEntryKey(consumer: string, id: string): string {
  return `${redisQuarantineIndexKey(consumer)}!replaying:${id}`;
}

/**
 * The entries an operator resolved or discarded, out of the listing and kept for audit, scored by when
 * they were dealt with: bounded like the listing, the oldest deleted past the cap.
 */
export function redisAuditIndexKey(consumer: string): string {
  return `${redisQuarantineIndexKey(consumer)}!audit`;
}

/** The log of a failed batch's replays (operator/failed-batches/replay-log.ts), a hash. */
export function redisReplayLogKey(consumer: string, objectName: string): string {
  return `${redisQuarantineIndexKey(consumer)}!failed-batch:${objectName}`;
}

/** The consumer's replay logs by last replay: the oldest deleted past REDIS_REPLAY_LOG_CAP. */
export function redisReplayLogIndexKey(consumer: string): string {
  return `${redisQuarantineIndexKey(consumer)}!failed-batches`;
}
