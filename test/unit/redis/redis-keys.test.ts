/**
 * The Redis keys (lambdas/redis/redis-keys.ts): in cluster mode a script may touch only keys of one slot,
 * so everything an operator deals with must share the consumer's hash tag, whatever coordinates a record
 * came with; and no key of one kind may be a key of another.
 */
import { describe, expect, it } from 'vitest';
import {
  redisAuditIndexKey,
  redisDedupRowKey,
  redisParkedEntryKey,
  redisQuarantineEntryKey,
  redisQuarantineIndexKey,
  redisReplayLogIndexKey,
  redisReplayLogKey,
} from '../../../lambdas/redis/redis-keys.js';

/** The part of a key Redis hashes to pick its slot (https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/#hash-tags). */
function hashedPart(key: string): string {
  const open = key.indexOf('{');
  const close = open === -1 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

const HOSTILE_IDS = ['orders-0@1', '}{x}@2', 'replaying:orders-0@1', '!audit', 'failed-batch:b1', ''];

describe('the Redis keys', () => {
  it('keep every key an operator deals with on the consumer’s quarantine tag', () => {
    const keys = [
      redisQuarantineIndexKey('orders'),
      redisAuditIndexKey('orders'),
      redisReplayLogIndexKey('orders'),
      ...HOSTILE_IDS.flatMap((id) => [
        redisQuarantineEntryKey('orders', id),
        redisParkedEntryKey('orders', id),
        redisReplayLogKey('orders', id),
      ]),
    ];
    expect(new Set(keys.map(hashedPart))).toEqual(new Set(['orders!quarantine']));
    expect(hashedPart(redisDedupRowKey('orders', 'e1'))).toBe('orders#e1');
  });

  it('give no two kinds of key the same name, whatever the ids', () => {
    const kinds = [
      [redisQuarantineIndexKey('orders'), redisAuditIndexKey('orders'), redisReplayLogIndexKey('orders')],
      HOSTILE_IDS.map((id) => redisQuarantineEntryKey('orders', id)),
      HOSTILE_IDS.map((id) => redisParkedEntryKey('orders', id)),
      HOSTILE_IDS.map((id) => redisReplayLogKey('orders', id)),
    ];
    const all = kinds.flat();
    expect(new Set(all).size).toBe(all.length);
  });
});
