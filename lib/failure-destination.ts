/**
 * Where the event source mapping sends records it gives up on (retries exhausted, older than
 * `maxRecordAge`), and the IAM each destination needs on the function's role.
 * https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html
 * https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure-destination.html
 *
 * - S3 (the default, the construct's own bucket): the metadata and the whole batch.
 * - A Kafka topic of the same cluster: the failed records themselves, with failure metadata.
 * - SQS or SNS: metadata only (offset ranges): the records must be read again from the topic.
 */
import { Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { KAFKA_TOPIC } from './kafka-names.js';
import type { KafkaSource } from './kafka-source.js';
import { mskIamResources } from './msk-arns.js';

export type FailureDestination =
  | { readonly kind: 's3' }
  | { readonly kind: 'kafka-topic'; readonly topic: string }
  | { readonly kind: 'sqs'; readonly queue: sqs.IQueue }
  | { readonly kind: 'sns'; readonly topic: sns.ITopic };

export function failureDestinationProblems(
  destination: FailureDestination | undefined,
  sourceTopic: string,
): string[] {
  if (destination?.kind !== 'kafka-topic') return [];
  const { topic } = destination;
  if (Token.isUnresolved(topic)) return [];
  if (!KAFKA_TOPIC.test(topic)) {
    return [`onFailure.topic "${topic}" is not a Kafka topic name: use 1-249 of a-z A-Z 0-9 . _ -`];
  }
  // Lambda blocks a destination topic equal to the source topic: failed records would loop.
  if (topic === sourceTopic) {
    return [
      `onFailure.topic is the consumed topic "${topic}": Lambda refuses a loop; name another topic of the cluster`,
    ];
  }
  return [];
}

/**
 * The mapping's destination for a non-S3 destination, after granting what Lambda needs to write to it:
 * sqs:SendMessage (and the queue key's use), sns:Publish (and the topic key's use), and for a Kafka topic
 * on an IAM-authenticated MSK cluster kafka-cluster:WriteData on that topic (Connect is already granted
 * on the cluster for reading; SASL/SCRAM and self-managed brokers authorise with the source's secret).
 */
export function bindFailureDestination(
  destination: Exclude<FailureDestination, { kind: 's3' }>,
  role: iam.IRole,
  source: KafkaSource,
  consumerGroupId: string,
): lambda.IEventSourceDlq {
  switch (destination.kind) {
    case 'sqs':
      destination.queue.grantSendMessages(role);
      return { bind: () => ({ destination: destination.queue.queueArn }) };
    case 'sns':
      destination.topic.grantPublish(role);
      return { bind: () => ({ destination: destination.topic.topicArn }) };
    case 'kafka-topic': {
      if (source.kind === 'msk' && source.saslScramSecretArn === undefined) {
        const { topic } = mskIamResources(source.clusterArn, destination.topic, consumerGroupId);
        role.addToPrincipalPolicy(
          new iam.PolicyStatement({ actions: ['kafka-cluster:WriteData'], resources: [topic] }),
        );
      }
      return { bind: () => ({ destination: `kafka://${destination.topic}` }) };
    }
  }
}
