/**
 * The Redis store's scripts (docs/redis.md): each a check and a write in one step, which Redis runs
 * atomically, so no other client's command comes between them. A row is one string key holding JSON:
 * `s` status, `h` payload hash, `src` source, `exp` the last second of the dedup window (epoch seconds,
 * by the store's clock, as DynamoDB's `expires_at`: a row past it counts as absent before Redis deletes
 * it), `lo` the attempt token holding the lease, `lu` the lease's last millisecond (epoch ms), `cb` the
 * token that completed it. Numbers travel as text and are compared with
 * tonumber. Every key a script touches is in KEYS, and one event's keys share a hash tag: one slot in a
 * cluster.
 */

/**
 * KEYS[1] the row; ARGV[1] the new IN_PROGRESS row, ARGV[2] its time to live (ms), ARGV[3] now (ms).
 * Writes the row when there is none, or only an expired one, or an IN_PROGRESS one whose lease ran out
 * (a takeover); else answers the row it found, and writes nothing.
 */
export const CLAIM_SCRIPT = `
local found = redis.call('GET', KEYS[1])
if found then
  local row = cjson.decode(found)
  local now = tonumber(ARGV[3])
  local live = tonumber(row.exp) >= math.floor(now / 1000)
  local held = row.s ~= 'IN_PROGRESS' or tonumber(row.lu) >= now
  if live and held then return found end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;

/**
 * KEYS[1] the row; ARGV[1] the attempt token; ARGV[2] the COMPLETED row this attempt would leave, ARGV[3]
 * what is left of its time to live (ms). COMPLETED while this attempt still holds the row (or completed it
 * already: a retried completion), keeping its time to live. A row that is gone although its window is not
 * over was lost by the server (a failover promoted a replica the claim had not reached: docs/redis.md#
 * failover): nobody else holds the event, so the completed row is written back ('restored'), and a
 * redelivery is still a duplicate. Else 'lease-lost'.
 */
export const COMPLETE_SCRIPT = `
local found = redis.call('GET', KEYS[1])
if not found then
  if tonumber(ARGV[3]) <= 0 then return 'lease-lost' end
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 'restored'
end
local row = cjson.decode(found)
if row.lo ~= ARGV[1] and row.cb ~= ARGV[1] then return 'lease-lost' end
row.s = 'COMPLETED'
row.cb = ARGV[1]
row.lo = nil
row.lu = nil
redis.call('SET', KEYS[1], cjson.encode(row), 'KEEPTTL')
return 'completed'`;

/** KEYS[1] the row; ARGV[1] the attempt token. Deletes the row while this attempt holds it. */
export const RELEASE_SCRIPT = `
local found = redis.call('GET', KEYS[1])
if not found then return 'released' end
local row = cjson.decode(found)
if row.lo ~= ARGV[1] then return 'lease-lost' end
redis.call('DEL', KEYS[1])
return 'released'`;

/**
 * A Lua function for the scripts that add to a bounded index (a sorted set whose members are key names
 * under its hash tag): past `cap` members, the oldest leave the index and their keys are deleted.
 */
export const DROP_OLDEST_PAST_CAP = `
local function dropOldestPastCap(index, cap)
  local over = redis.call('ZCARD', index) - tonumber(cap)
  if over > 0 then
    for _, oldest in ipairs(redis.call('ZRANGE', index, 0, over - 1)) do redis.call('DEL', oldest) end
    redis.call('ZREMRANGEBYRANK', index, 0, over - 1)
  end
end`;

/**
 * KEYS[1] the quarantine entry, KEYS[2] the consumer's index of entries (a sorted set by time); ARGV[1]
 * the entry, ARGV[2] now (ms), ARGV[3] how many entries the index keeps. Writes the entry once; past the
 * cap, the oldest entries leave the index and are deleted (they share the index's hash tag).
 */
export const QUARANTINE_SCRIPT = `${DROP_OLDEST_PAST_CAP}
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 'already-quarantined' end
redis.call('ZADD', KEYS[2], ARGV[2], KEYS[1])
dropOldestPastCap(KEYS[2], ARGV[3])
return 'quarantined'`;
