/**
 * Kafka's default partitioner for keyed records: murmur2 of the key bytes, made positive, modulo the
 * partition count (Java client `Utils.murmur2` / `toPositive`). The in-memory log uses it so a workload
 * lands on the same partitions as it would in a real broker.
 */
export function partitionForKey(key: Buffer, partitionCount: number): number {
  return (murmur2(key) & 0x7fffffff) % partitionCount;
}

export function murmur2(data: Buffer): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = 0x9747b28c ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k =
      (data[i] ?? 0) | ((data[i + 1] ?? 0) << 8) | ((data[i + 2] ?? 0) << 16) | ((data[i + 3] ?? 0) << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  const tail = length % 4;
  if (tail === 3) h ^= (data[whole + 2] ?? 0) << 16;
  if (tail >= 2) h ^= (data[whole + 1] ?? 0) << 8;
  if (tail >= 1) {
    h ^= data[whole] ?? 0;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}
