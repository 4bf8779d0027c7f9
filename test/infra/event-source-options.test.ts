import { type App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { InboxTable } from '../../lib/inbox-table.js';
import { InvalidPropsError } from '../../lib/invalid-props-error.js';
import { KafkaConsumer, type KafkaConsumerProps } from '../../lib/kafka-consumer.js';
import {
  acknowledgements,
  allFindings,
  allowedPairs,
  defined,
  EXAMPLE_CLUSTER_ARN,
  EXAMPLE_SECRET_ARN,
  FIXTURE_ENTRY,
  logicalId,
  onlyResource,
  policyStatements,
  projectApp,
  unacknowledgedFindings,
} from './support.js';

const CLUSTER_PATH = 'demo/751d2973-a626-431c-9d4e-d7975eb44dd7-2';
const REGISTRY_ARN = 'arn:aws:glue:us-east-1:123456789012:registry/orders';
const CONFLUENT_SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:confluent-sr-AbCdEf';
const ROOT_CA_SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:sr-root-ca-AbCdEf';

interface Built {
  readonly app: App;
  readonly stack: Stack;
  readonly consumer: KafkaConsumer;
  readonly template: Template;
}

function build(options: (stack: Stack) => Partial<KafkaConsumerProps>): Built {
  const app = projectApp({ builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Options');
  const consumer = new KafkaConsumer(stack, 'Orders', {
    consumerName: 'order-consumer',
    source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
    topic: 'orders',
    consumerGroupId: 'order-consumer',
    inboxTable: new InboxTable(stack, 'Inbox'),
    entry: FIXTURE_ENTRY,
    ...options(stack),
  });
  return { app, stack, consumer, template: Template.fromStack(stack) };
}

/** Every option at once, on MSK with IAM authentication: filters under a customer key, the Glue registry, a poller group, a Kafka destination. */
describe('KafkaConsumer with every event source option', () => {
  let built: Built;
  let key: kms.Key;
  beforeAll(() => {
    built = build((stack) => {
      key = new kms.Key(stack, 'FilterKey', { enableKeyRotation: true });
      return {
        filters: [
          { value: { type: ['order.placed'], amount: [{ numeric: ['>', 0] }] } },
          { value: [{ prefix: 'order ' }] },
        ],
        filterEncryption: key,
        schemaRegistry: {
          kind: 'glue',
          registryArn: REGISTRY_ARN,
          eventRecordFormat: 'JSON',
          validate: ['KEY', 'VALUE'],
        },
        provisionedPollers: { minimumPollers: 2, maximumPollers: 8, pollerGroupName: 'orders-pollers' },
        onFailure: { kind: 'kafka-topic', topic: 'orders-failed' },
      };
    });
  });

  it('passes every option to the mapping', () => {
    const mapping = onlyResource(built.template, 'AWS::Lambda::EventSourceMapping').Properties;
    expect(mapping).toMatchObject({
      FilterCriteria: {
        Filters: [
          { Pattern: '{"value":{"type":["order.placed"],"amount":[{"numeric":[">",0]}]}}' },
          { Pattern: '{"value":[{"prefix":"order "}]}' },
        ],
      },
      KmsKeyArn: { 'Fn::GetAtt': [logicalId(key), 'Arn'] },
      ProvisionedPollerConfig: { MinimumPollers: 2, MaximumPollers: 8, PollerGroupName: 'orders-pollers' },
      DestinationConfig: { OnFailure: { Destination: 'kafka://orders-failed' } },
      AmazonManagedKafkaEventSourceConfig: {
        ConsumerGroupId: 'order-consumer',
        SchemaRegistryConfig: {
          SchemaRegistryURI: REGISTRY_ARN,
          EventRecordFormat: 'JSON',
          SchemaValidationConfigs: [{ Attribute: 'KEY' }, { Attribute: 'VALUE' }],
        },
      },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('grants the registry reads and the destination topic write, and no failure bucket access', () => {
    const pairs = allowedPairs(policyStatements(built.template));
    expect(pairs).toEqual(
      expect.arrayContaining(
        allowedPairs([
          { Effect: 'Allow', Action: 'glue:GetRegistry', Resource: REGISTRY_ARN },
          {
            Effect: 'Allow',
            Action: 'glue:GetSchemaVersion',
            Resource: [REGISTRY_ARN, 'arn:aws:glue:us-east-1:123456789012:schema/orders/*'],
          },
          {
            Effect: 'Allow',
            Action: 'kafka-cluster:WriteData',
            Resource: `arn:aws:kafka:us-east-1:123456789012:topic/${CLUSTER_PATH}/orders-failed`,
          },
        ]),
      ),
    );
    expect(pairs.filter((pair) => pair.includes(' s3:'))).toEqual([]);
    expect(pairs.filter((pair) => pair.includes('kafka-cluster:WriteData'))).toHaveLength(1);
  });

  it("lets Lambda decrypt the filter criteria with the key (the key's policy)", () => {
    const policy = JSON.stringify(onlyResource(built.template, 'AWS::KMS::Key').Properties.KeyPolicy);
    expect(policy).toContain('"Service":"lambda.amazonaws.com"');
    expect(policy).toContain('kms:Decrypt');
  });

  it('passes cdk-nag, acknowledging only findings that exist', () => {
    expect(unacknowledgedFindings(built.app)).toEqual([]);
    const findings = allFindings(built.app).map((finding) => `${finding.rule} ${finding.path}`);
    for (const ack of acknowledgements(built.app)) {
      expect(findings.some((finding) => finding.startsWith(ack.rule))).toBe(true);
    }
  });
});

describe('KafkaConsumer event source options, one at a time', () => {
  it('a Confluent registry: its URI, SOURCE format and each secret as an access configuration, each readable by the role', () => {
    const { template } = build(() => ({
      source: {
        kind: 'self-managed',
        bootstrapServers: ['b-1.kafka.internal:9096'],
        saslScramSecretArn: EXAMPLE_SECRET_ARN,
      },
      schemaRegistry: {
        kind: 'confluent',
        uri: 'https://psrc-abc.us-east-1.aws.confluent.cloud',
        eventRecordFormat: 'SOURCE',
        basicAuthSecretArn: CONFLUENT_SECRET,
        serverRootCaSecretArn: ROOT_CA_SECRET,
      },
    }));
    const mapping = onlyResource(template, 'AWS::Lambda::EventSourceMapping').Properties;
    expect(mapping.SelfManagedKafkaEventSourceConfig).toEqual({
      ConsumerGroupId: 'order-consumer',
      SchemaRegistryConfig: {
        SchemaRegistryURI: 'https://psrc-abc.us-east-1.aws.confluent.cloud',
        EventRecordFormat: 'SOURCE',
        AccessConfigs: [
          { Type: 'BASIC_AUTH', URI: CONFLUENT_SECRET },
          { Type: 'SERVER_ROOT_CA_CERTIFICATE', URI: ROOT_CA_SECRET },
        ],
        SchemaValidationConfigs: [{ Attribute: 'VALUE' }],
      },
    });
    expect(allowedPairs(policyStatements(template))).toEqual(
      expect.arrayContaining(
        allowedPairs([
          {
            Effect: 'Allow',
            Action: 'secretsmanager:GetSecretValue',
            Resource: [CONFLUENT_SECRET, ROOT_CA_SECRET],
          },
        ]),
      ),
    );
  });

  it('an SQS queue: the destination is the queue, sqs:SendMessage is granted on it, the bucket is not', () => {
    let queue: sqs.Queue | undefined;
    const { template } = build((stack) => {
      queue = new sqs.Queue(stack, 'Failed', { enforceSSL: true });
      return { onFailure: { kind: 'sqs', queue } };
    });
    const queueId = logicalId(queue as sqs.Queue);
    const mapping = onlyResource(template, 'AWS::Lambda::EventSourceMapping').Properties;
    expect(mapping.DestinationConfig).toEqual({
      OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } },
    });
    const pairs = allowedPairs(policyStatements(template));
    expect(pairs).toContain(`Allow sqs:SendMessage on ${JSON.stringify({ 'Fn::GetAtt': [queueId, 'Arn'] })}`);
    expect(pairs.filter((pair) => pair.includes(' s3:'))).toEqual([]);
  });

  it('an SNS topic: the destination is the topic, sns:Publish is granted on it', () => {
    let topic: sns.Topic | undefined;
    const { template } = build((stack) => {
      topic = new sns.Topic(stack, 'Failed', { enforceSSL: true });
      return { onFailure: { kind: 'sns', topic } };
    });
    const topicRef = { Ref: logicalId(topic as sns.Topic) };
    const mapping = onlyResource(template, 'AWS::Lambda::EventSourceMapping').Properties;
    expect(mapping.DestinationConfig).toEqual({ OnFailure: { Destination: topicRef } });
    expect(allowedPairs(policyStatements(template))).toContain(
      `Allow sns:Publish on ${JSON.stringify(topicRef)}`,
    );
  });

  it('a Kafka destination on SASL/SCRAM needs no kafka-cluster action: the secret authorises the producer', () => {
    const { template } = build(() => ({
      source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN, saslScramSecretArn: EXAMPLE_SECRET_ARN },
      onFailure: { kind: 'kafka-topic', topic: 'orders-failed' },
    }));
    expect(JSON.stringify(policyStatements(template))).not.toContain('kafka-cluster:');
  });

  it('the default stays the failure bucket', () => {
    const { template, consumer } = build(() => ({}));
    const mapping = onlyResource(template, 'AWS::Lambda::EventSourceMapping').Properties;
    expect(mapping.DestinationConfig).toEqual({
      OnFailure: {
        Destination: {
          'Fn::GetAtt': [logicalId(defined(consumer.failureBucket, 'the failure bucket')), 'Arn'],
        },
      },
    });
    expect(mapping.FilterCriteria).toBeUndefined();
    expect(mapping.ProvisionedPollerConfig).toEqual({ MinimumPollers: 1, MaximumPollers: 2 });
  });
});

describe('KafkaConsumer event source options Lambda refuses', () => {
  const refused: [string, (stack: Stack) => Partial<KafkaConsumerProps>, string][] = [
    [
      'filter encryption without filters',
      (stack) => ({ filterEncryption: new kms.Key(stack, 'Key', { enableKeyRotation: true }) }),
      'filterEncryption is set without filters: there is nothing to encrypt; add filters or remove it',
    ],
    [
      'a filter on the key',
      () => ({ filters: [{ value: ['x'], key: ['k'] } as never] }),
      'filters[0] names key: Kafka mappings filter on "value" only',
    ],
    [
      'a rule Lambda lacks',
      () => ({ filters: [{ value: { file: [{ wildcard: '*.png' }] } }] }),
      `filters[0]: value.file[0]: "wildcard" is not in Lambda's filter rules (exact values, prefix, suffix, equals-ignore-case, numeric, exists, anything-but, $or)`,
    ],
    [
      'the consumed topic as the destination',
      () => ({ onFailure: { kind: 'kafka-topic', topic: 'orders' } }),
      'onFailure.topic is the consumed topic "orders": Lambda refuses a loop; name another topic of the cluster',
    ],
    [
      'a malformed destination topic',
      () => ({ onFailure: { kind: 'kafka-topic', topic: 'orders failed' } }),
      'onFailure.topic "orders failed" is not a Kafka topic name: use 1-249 of a-z A-Z 0-9 . _ -',
    ],
    [
      'two ways to authenticate to a Confluent registry',
      () => ({
        schemaRegistry: {
          kind: 'confluent',
          uri: 'https://registry.example.com',
          basicAuthSecretArn: CONFLUENT_SECRET,
          clientCertificateSecretArn: ROOT_CA_SECRET,
        },
      }),
      'schemaRegistry sets both basicAuthSecretArn and clientCertificateSecretArn: Lambda authenticates to a Confluent registry one way; keep one',
    ],
    [
      'a Glue registry given by name',
      () => ({ schemaRegistry: { kind: 'glue', registryArn: 'orders' } }),
      'schemaRegistry.registryArn "orders" is not a Glue registry ARN (arn:aws:glue:<region>:<account>:registry/<name>)',
    ],
    [
      'nothing to validate',
      () => ({ schemaRegistry: { kind: 'glue', registryArn: REGISTRY_ARN, validate: [] } }),
      'schemaRegistry.validate must list KEY, VALUE or both, each once',
    ],
    [
      'an empty poller group name',
      () => ({ provisionedPollers: { pollerGroupName: ' ' } }),
      'provisionedPollers.pollerGroupName is empty: name the group, or leave it out for pollers of its own',
    ],
  ];

  it.each(refused)('refuses %s, with one message', (_case, options, message) => {
    let error: unknown;
    try {
      build(options);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(InvalidPropsError);
    expect((error as InvalidPropsError).problems).toEqual([message]);
  });
});
