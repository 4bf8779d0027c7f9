/** The sample consumer's Lambda entry, as the sample stack deploys it and the local runtime bundles it. */
import { resolve } from 'node:path';

export const ORDER_CONSUMER_ENTRY = resolve(import.meta.dirname, '..', 'order-consumer', 'handler.ts');

/** The same consumer on Postgres (`npm start -- --store postgres`). */
export const ORDER_CONSUMER_POSTGRES_ENTRY = resolve(
  import.meta.dirname,
  '..',
  'order-consumer',
  'postgres-handler.ts',
);
