/**
 * globalSetup of the e2e project (vitest.config.ts), which holds the Kafka broker tests: where kcat is
 * missing, the run says once why they are skipped (test/support/broker.ts).
 */
import { BROKER_SKIP_NOTICE, skipBrokerTests } from './broker.js';

export default function setup(): void {
  if (skipBrokerTests) console.warn(BROKER_SKIP_NOTICE);
}
