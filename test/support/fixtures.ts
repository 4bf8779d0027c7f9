import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { KafkaEvent } from '../../lambdas/core/kafka-event.js';

/**
 * A real-shaped event from test/fixtures/events. schema-registry-json-event: what Lambda hands over with a
 * schema registry and `EventRecordFormat: JSON` (the value converted to JSON text, base64, and the
 * records' `keySchemaMetadata`/`valueSchemaMetadata`; https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html).
 */
export function loadEvent(
  name: 'msk-event' | 'self-managed-event' | 'schema-registry-json-event',
): KafkaEvent {
  return JSON.parse(
    readFileSync(resolve(import.meta.dirname, '..', 'fixtures', 'events', `${name}.json`), 'utf8'),
  );
}
