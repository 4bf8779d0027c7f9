import { describe, expect, it } from 'vitest';
import { OUTBOX_ID_NAMESPACE, outboxEventId, uuidV5 } from '../../../lambdas/core/outbox-event-id.js';

describe('outbox event ids', () => {
  it('are RFC 9562 UUIDv5: the RFC namespace for DNS names www.example.com as everyone else does', () => {
    // The DNS namespace of RFC 9562 appendix and the id Python's uuid.uuid5 gives for the same name.
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });

  it('name a source event and position alike on every delivery, and differ when any part differs', () => {
    const id = outboxEventId('orders', 'evt-1', 0);
    expect(outboxEventId('orders', 'evt-1', 0)).toBe(id);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const others = [
      outboxEventId('orders', 'evt-1', 1),
      outboxEventId('orders', 'evt-2', 0),
      outboxEventId('payments', 'evt-1', 0),
      // No separator trick joins two parts into one name.
      outboxEventId('orders#evt', '1', 0),
      outboxEventId('orders', 'evt-1", 0', 0),
    ];
    expect(new Set([id, ...others]).size).toBe(others.length + 1);
  });

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuidV5('not-a-uuid', 'x')).toThrow(/not a UUID/);
    expect(OUTBOX_ID_NAMESPACE).toMatch(/^[0-9a-f-]{36}$/);
  });
});
