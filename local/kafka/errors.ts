/** Base class of the local Kafka tooling's errors: catch this to handle any of them. */
export class LocalKafkaError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LocalKafkaError';
  }
}

/** kcat, which hosts librdkafka's mock cluster, is not on the PATH. */
export class KcatNotInstalledError extends LocalKafkaError {
  constructor(options?: ErrorOptions) {
    super(
      'kcat is not installed: run `apt-get install -y kcat` (.ci/run does it on a fresh machine)',
      options,
    );
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
