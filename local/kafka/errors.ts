import { UserError } from '../../operator/cli/user-error.js';

/** How to get the local broker's host program, for every message that needs it. */
export const INSTALL_KCAT = 'apt-get install kcat (Debian, Ubuntu) or brew install kcat (macOS)';

/** Base class of the local Kafka tooling's failures (a missing kcat is a UserError instead). */
export class LocalKafkaError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LocalKafkaError';
  }
}

/** kcat, which hosts librdkafka's mock cluster, is not on the PATH: a person installs it. */
export class KcatNotInstalledError extends UserError {
  constructor(options?: ErrorOptions) {
    super(`kcat is not installed (it hosts the local Kafka broker): ${INSTALL_KCAT}`, options);
    this.name = 'KcatNotInstalledError';
  }
}

/** The mock cluster exited or never printed its bootstrap list. */
export class KafkaMockClusterStartError extends LocalKafkaError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'KafkaMockClusterStartError';
  }
}

/** The consumer did not get a partition assignment in time, or kafkajs gave up on the group for good. */
export class KafkaConsumerGroupError extends LocalKafkaError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'KafkaConsumerGroupError';
  }
}
