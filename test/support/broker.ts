/**
 * Tests that need the local Kafka broker (librdkafka's mock cluster, hosted by kcat) run wherever kcat is
 * installed. Elsewhere they are skipped, and the run says why in one line (test/support/broker-setup.ts),
 * unless REQUIRE_BROKER_VARIABLE is set, as .ci/run does: then they run and fail, so CI never skips them.
 */
import { isKcatInstalled } from '../../local/kafka/broker.js';
import { INSTALL_KCAT } from '../../local/kafka/errors.js';

export const REQUIRE_BROKER_VARIABLE = 'MSK_INBOX_REQUIRE_BROKER';

export const brokerRequired = process.env[REQUIRE_BROKER_VARIABLE] === '1';

/** Pass to `describe.skipIf`. */
export const skipBrokerTests = !brokerRequired && !isKcatInstalled();

export const BROKER_SKIP_NOTICE = `kcat not found: the Kafka broker tests (test/e2e/kafka) are skipped; ${INSTALL_KCAT} runs them (CI sets ${REQUIRE_BROKER_VARIABLE}=1, which fails them instead)`;
