/** The sample consumers' Lambda entries, as the local runtime bundles them; the sample stack deploys the first. */
import { resolve } from 'node:path';

export const ORDER_CONSUMER_ENTRY = resolve(import.meta.dirname, '..', 'order-consumer', 'handler.ts');

/** The same consumer on Postgres (`npm start -- --store postgres`). */
export const ORDER_CONSUMER_POSTGRES_ENTRY = resolve(
  import.meta.dirname,
  '..',
  'order-consumer',
  'postgres-handler.ts',
);

/** The side-effect consumer of the same orders, on Redis (`npm start -- --store redis`). */
export const NOTIFICATION_CONSUMER_ENTRY = resolve(
  import.meta.dirname,
  '..',
  'notification-consumer',
  'handler.ts',
);
