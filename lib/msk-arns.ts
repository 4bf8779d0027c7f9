import { Fn, Token } from 'aws-cdk-lib';

/** `arn:<partition>:kafka:<region>:<account>:cluster/<name>/<uuid>` */
const MSK_CLUSTER_ARN = /^arn:(aws[a-z-]*):kafka:([a-z0-9-]+):(\d{12}):cluster\/([^/]+)\/([^/]+)$/;

/** The three MSK IAM resources a consumer touches, for `kafka-cluster:*` actions. */
export interface MskIamResources {
  readonly cluster: string;
  readonly topic: string;
  readonly group: string;
}

export function isMskClusterArn(arn: string): boolean {
  return Token.isUnresolved(arn) || MSK_CLUSTER_ARN.test(arn);
}

/**
 * Topic and group ARNs share the cluster's name and UUID:
 * `arn:aws:kafka:<region>:<account>:topic/<cluster>/<uuid>/<topic>` and `.../group/<cluster>/<uuid>/<group>`.
 * https://docs.aws.amazon.com/msk/latest/developerguide/kafka-actions.html
 */
export function mskIamResources(clusterArn: string, topic: string, groupId: string): MskIamResources {
  return {
    cluster: clusterArn,
    topic: mskResourceArn(clusterArn, 'topic', topic),
    group: mskResourceArn(clusterArn, 'group', groupId),
  };
}

/** The ARN of one topic of the cluster, for `kafka-cluster:*` actions on topics (the outbox relay's writes). */
export function mskTopicArn(clusterArn: string, topic: string): string {
  return mskResourceArn(clusterArn, 'topic', topic);
}

function mskResourceArn(clusterArn: string, type: 'topic' | 'group', name: string): string {
  const match = MSK_CLUSTER_ARN.exec(clusterArn);
  if (match) {
    const [, partition, region, account, cluster, uuid] = match;
    return `arn:${partition}:kafka:${region}:${account}:${type}/${cluster}/${uuid}/${name}`;
  }
  // A cluster created in the same app: its ARN is a token, so split it in CloudFormation.
  const parts = Fn.split(':', clusterArn, 6);
  const resource = Fn.split('/', Fn.select(5, parts), 3);
  return Fn.join('', [
    'arn:',
    Fn.select(1, parts),
    ':kafka:',
    Fn.select(3, parts),
    ':',
    Fn.select(4, parts),
    `:${type}/`,
    Fn.select(1, resource),
    '/',
    Fn.select(2, resource),
    `/${name}`,
  ]);
}
