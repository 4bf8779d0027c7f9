/**
 * The operator's writes on a Redis inbox (redis-operator-inbox.ts), each one Lua script, so its check and
 * its writes are one step no other client's command comes between. Every key a script touches is in
 * KEYS and shares the consumer's quarantine tag (lambdas/redis/redis-keys.ts): one slot in a cluster.
 *
 * An entry is in at most one index: the quarantine index while it is QUARANTINED (which the store's
 * quarantine script trims at its cap), the audit index once an operator resolved or discarded it (which
 * these scripts trim, the operator being its only writer). A parked copy stands in its entry's index.
 */
import { DROP_OLDEST_PAST_CAP } from '../lambdas/redis/redis-scripts.js';

/**
 * KEYS[1] the entry, KEYS[2] the quarantine index, KEYS[3] the audit index; ARGV[1] the entry as read,
 * ARGV[2] the entry dealt with, ARGV[3] its score (when it was dealt with), ARGV[4] the audit cap.
 * Replaces the entry and moves it to the audit index, only while it is the very text read: else 0.
 */
export const SETTLE_SCRIPT = `${DROP_OLDEST_PAST_CAP}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('ZREM', KEYS[2], KEYS[1])
redis.call('ZADD', KEYS[3], ARGV[3], KEYS[1])
dropOldestPastCap(KEYS[3], ARGV[4])
return 1`;

/**
 * KEYS[1] the entry, KEYS[2] its parked key, KEYS[3] the index the entry is in (by its status); ARGV[1]
 * the entry as read, ARGV[2] the parked copy, ARGV[3] the copy's score should the entry be in no index.
 * Moves the entry to its parked key, in its place in the index, only while it is the very text read and
 * nothing is parked there yet: else 0.
 */
export const PARK_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local score = redis.call('ZSCORE', KEYS[3], KEYS[1]) or ARGV[3]
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[3], KEYS[1])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], score, KEYS[2])
return 1`;

/**
 * KEYS[1] the entry, KEYS[2] its parked key, KEYS[3] the index the entry goes to (by its status), KEYS[4]
 * the other index; ARGV[1] the entry, ARGV[2] its score, ARGV[3] the cap to trim KEYS[3] to, or '' to
 * leave it (the store trims the quarantine index: the operator never drops a record still quarantined).
 * Puts the entry under its own key, replacing whatever is there, and drops the parked copy.
 */
export const UNPARK_SCRIPT = `${DROP_OLDEST_PAST_CAP}
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], KEYS[2])
redis.call('ZREM', KEYS[4], KEYS[2])
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[4], KEYS[1])
redis.call('ZADD', KEYS[3], ARGV[2], KEYS[1])
if ARGV[3] ~= '' then dropOldestPastCap(KEYS[3], ARGV[3]) end
return 1`;

/**
 * KEYS[1] a failed batch's replay log (a hash), KEYS[2] the consumer's index of logs; ARGV[1] the
 * attempts field, ARGV[2] the first-replay field, ARGV[3] this replay's time (ms), ARGV[4] the cap of
 * logs kept, ARGV[5...] the fields this replay sets, name and value in turn. Counts the attempt, keeps the
 * first replay's time, and drops the logs of the batches replayed longest ago past the cap.
 */
export const RECORD_REPLAY_SCRIPT = `${DROP_OLDEST_PAST_CAP}
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('HSETNX', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
dropOldestPastCap(KEYS[2], ARGV[4])
return 1`;
