/**
 * An emitted event's id: a name-based UUID (version 5, RFC 9562 section 5.5) of the consumer, the source
 * event's dedup key and the event's position in its effect's `emit`, so every delivery of the source
 * names its events alike and a republish can never mint a second id (docs/outbox.md#event-ids).
 */
import { createHash } from 'node:crypto';

/** This library's namespace for outbox event ids (a random UUID, fixed for good: changing it renames every id). */
export const OUTBOX_ID_NAMESPACE = '6f1e1c8a-4f7b-4d0e-9a55-3c2b9d7e8f10';

export function outboxEventId(consumer: string, dedupKey: string, position: number): string {
  // JSON of the three parts: no choice of separator can make two different triples one name.
  return uuidV5(OUTBOX_ID_NAMESPACE, JSON.stringify([consumer, dedupKey, position]));
}

/** RFC 9562 UUIDv5: SHA-1 of the namespace's 16 bytes and the name's UTF-8, version and variant bits set. */
export function uuidV5(namespace: string, name: string): string {
  const namespaceBytes = Buffer.from(namespace.replaceAll('-', ''), 'hex');
  if (namespaceBytes.length !== 16) throw new Error(`not a UUID: ${namespace}`);
  const hash = createHash('sha1').update(namespaceBytes).update(name, 'utf8').digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
