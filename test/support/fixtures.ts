import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { KafkaEvent } from '../../lambdas/core/kafka-event.js';

/** A real-shaped event from test/fixtures/events. */
export function loadEvent(name: 'msk-event' | 'self-managed-event'): KafkaEvent {
  return JSON.parse(
    readFileSync(resolve(import.meta.dirname, '..', 'fixtures', 'events', `${name}.json`), 'utf8'),
  );
}
