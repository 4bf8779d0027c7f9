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
  const match = MSK_CLUSTER_ARN.exec(clusterArn);
  if (match) {
    const [, partition, region, account, name, uuid] = match;
    const prefix = `arn:${partition}:kafka:${region}:${account}`;
    return {
      cluster: clusterArn,
      topic: `${prefix}:topic/${name}/${uuid}/${topic}`,
      group: `${prefix}:group/${name}/${uuid}/${groupId}`,
    };
  }
  // A cluster created in the same app: its ARN is a token, so split it in CloudFormation.
  const parts = Fn.split(':', clusterArn, 6);
  const resource = Fn.split('/', Fn.select(5, parts), 3);
  const arnOf = (type: string, name: string): string =>
    Fn.join('', [
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
  return { cluster: clusterArn, topic: arnOf('topic', topic), group: arnOf('group', groupId) };
}
