import { type Env, EnvReader, type InboxConfig, readInboxConfig } from '../core/config.js';
import { METRICS_NAMESPACE } from '../core/metric-names.js';

export interface OrderConsumerConfig extends InboxConfig {
  readonly appTableName: string;
  readonly metricsNamespace: string;
}

/** Read once per cold start; throws one ConfigError naming every problem. */
export function readOrderConsumerConfig(env: Env): OrderConsumerConfig {
  const reader = new EnvReader(env);
  const config = {
    ...readInboxConfig(reader),
    appTableName: reader.required('APP_TABLE_NAME'),
    metricsNamespace: reader.optional('POWERTOOLS_METRICS_NAMESPACE', METRICS_NAMESPACE),
  };
  reader.done();
  return config;
}
