import { throwIfProblems } from '../../lib/invalid-props-error.js';
import type { KafkaSource } from '../../lib/kafka-consumer.js';
import type { MskInboxStackProps } from './msk-inbox-stack.js';

/** Every context key the app reads (`-c key=value`); lists are comma-separated. */
export const CONTEXT_KEYS = {
  mskClusterArn: 'mskClusterArn',
  topic: 'topic',
  consumerGroupId: 'consumerGroupId',
  bootstrapServers: 'bootstrapServers',
  secretArn: 'secretArn',
  subnetIds: 'subnetIds',
  securityGroupId: 'securityGroupId',
  alarmEmail: 'alarmEmail',
  consumerName: 'consumerName',
  adotLayerArn: 'adotLayerArn',
} as const;

export type ContextKey = keyof typeof CONTEXT_KEYS;

const DEPLOY_HINT = 'npx cdk deploy -c mskClusterArn=... -c topic=... -c consumerGroupId=...';

/** The stack's props from CDK context, or one error naming every missing or contradictory key. */
export function readAppContext(get: (key: ContextKey) => unknown): Omit<MskInboxStackProps, 'entry'> {
  const problems: string[] = [];
  const text = (key: ContextKey): string | undefined => {
    const value = get(key);
    if (value === undefined || value === null || value === '') {
      return undefined;
    }
    if (typeof value !== 'string') {
      problems.push(`context ${key} must be a string, got ${JSON.stringify(value)}`);
      return undefined;
    }
    return value.trim();
  };
  const list = (key: ContextKey): string[] | undefined => {
    const value = get(key);
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
      return value.map((item: string) => item.trim()).filter((item) => item !== '');
    }
    const joined = text(key);
    return joined === undefined
      ? undefined
      : joined
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== '');
  };

  const mskClusterArn = text('mskClusterArn');
  const topic = text('topic');
  const consumerGroupId = text('consumerGroupId');
  const bootstrapServers = list('bootstrapServers');
  const secretArn = text('secretArn');
  const subnetIds = list('subnetIds');
  const securityGroupId = text('securityGroupId');
  const alarmEmail = text('alarmEmail');
  const consumerName = text('consumerName');
  const adotLayerArn = text('adotLayerArn');

  if (topic === undefined) {
    problems.push('context topic is missing: pass -c topic=<the Kafka topic to consume>');
  }
  if (consumerGroupId === undefined) {
    problems.push(
      'context consumerGroupId is missing: pass -c consumerGroupId=<the Kafka consumer group id>',
    );
  }
  let source: KafkaSource | undefined;
  if (mskClusterArn !== undefined && bootstrapServers !== undefined) {
    problems.push(
      'context mskClusterArn and bootstrapServers contradict each other: pass mskClusterArn for Amazon MSK, or bootstrapServers with secretArn for self-managed Kafka, not both',
    );
  } else if (mskClusterArn !== undefined) {
    if (subnetIds !== undefined || securityGroupId !== undefined) {
      problems.push(
        "context subnetIds and securityGroupId apply to self-managed Kafka only: Lambda reaches MSK through the cluster's own VPC; remove them or use bootstrapServers instead of mskClusterArn",
      );
    }
    source = {
      kind: 'msk',
      clusterArn: mskClusterArn,
      ...(secretArn === undefined ? {} : { saslScramSecretArn: secretArn }),
    };
  } else if (bootstrapServers !== undefined) {
    if (secretArn === undefined) {
      problems.push(
        "context secretArn is missing: self-managed Kafka (bootstrapServers) needs the SASL/SCRAM secret's complete ARN",
      );
    }
    if ((subnetIds === undefined) !== (securityGroupId === undefined)) {
      problems.push(
        'context subnetIds and securityGroupId go together: pass both to reach brokers in a VPC, or neither for brokers reachable over the internet',
      );
    }
    source = {
      kind: 'self-managed',
      bootstrapServers,
      saslScramSecretArn: secretArn ?? '',
      ...(subnetIds !== undefined && securityGroupId !== undefined
        ? { vpc: { subnetIds, securityGroupIds: [securityGroupId] } }
        : {}),
    };
  } else {
    problems.push(
      'context mskClusterArn (Amazon MSK) or bootstrapServers with secretArn (self-managed Kafka) is missing: pass one of them',
    );
  }

  throwIfProblems(`The app's context is missing or contradictory (deploy with: ${DEPLOY_HINT})`, problems);
  return {
    source: source as KafkaSource,
    topic: topic as string,
    consumerGroupId: consumerGroupId as string,
    ...(consumerName === undefined ? {} : { consumerName }),
    ...(alarmEmail === undefined ? {} : { alarmEmail }),
    ...(adotLayerArn === undefined ? {} : { openTelemetry: { adotLayerArn } }),
  };
}
