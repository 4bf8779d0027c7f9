import { EnvReader, readInboxConfig } from '../../lambdas/core/config.js';

/** The handler's settings as a consumer reads them at cold start, with APP_TABLE_NAME for the sample. */
export function readOrderConsumerConfig(env: Record<string, string | undefined>) {
  const reader = new EnvReader(env);
  const config = { ...readInboxConfig(reader), appTableName: reader.required('APP_TABLE_NAME') };
  reader.done();
  return config;
}
