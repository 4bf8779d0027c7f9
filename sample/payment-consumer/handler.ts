/** Lambda entry of the pipeline's payment consumer: one call to the public entry. */
import { ConfigError, createInboxConsumer } from '../../lambdas/core/index.js';
import { paymentConsumer } from './payment-requested.js';

const ledgerTableName = process.env.LEDGER_TABLE_NAME?.trim();
if (!ledgerTableName) throw new ConfigError(['LEDGER_TABLE_NAME is required']);

export const handler = createInboxConsumer(paymentConsumer(ledgerTableName));
