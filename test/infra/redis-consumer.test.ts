/**
 * KafkaConsumer with its inbox in the team's Redis cache (`redis` prop, lib/redis-cache.ts): the function
 * in the cache's VPC behind a security group of its own, let in on the cache's port only, allowed to
 * connect as one IAM-enabled user (or to read one secret), the REDIS_* variables redisInbox() accepts,
 * cdk-nag clean; and the props refused in one line each. One synth per kind of cache.
 */
import { type App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { beforeAll, describe, expect, it } from 'vitest';
import { REDIS_SETTINGS, readRedisSettings } from '../../lambdas/redis/redis-settings.js';
import { InboxTable } from '../../lib/inbox-table.js';
import { InvalidPropsError } from '../../lib/invalid-props-error.js';
import { KafkaConsumer, type KafkaConsumerProps, type RedisInboxProps } from '../../lib/kafka-consumer.js';
import { OutboxTable } from '../../lib/outbox-table.js';
import { FUNCTION_VPC_ACTIONS } from '../../lib/postgres-database.js';
import {
  acknowledgements,
  allFindings,
  allowedPairs,
  EXAMPLE_CLUSTER_ARN,
  FIXTURE_ENTRY,
  logicalId,
  onlyResource,
  policyStatements,
  projectApp,
  unacknowledgedFindings,
} from './support.js';

const ENV = { account: '123456789012', region: 'us-east-1' };
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:payments-cache-AbCdEf';
const CACHE_SG = 'sg-0cache0000000000';
const SERVERLESS_ENDPOINT = 'payments-cache-abc123.serverless.use1.cache.amazonaws.com';
const env = REDIS_SETTINGS;

interface Built {
  readonly app: App;
  readonly stack: Stack;
  readonly template: Template;
  readonly consumer: KafkaConsumer;
}

type RedisOverrides = Partial<RedisInboxProps> | ((stack: Stack) => Partial<RedisInboxProps>);

/** A team's stack: its existing VPC and cache, imported, and a consumer whose inbox is that cache. */
function consumerOn(stack: Stack, redis: RedisOverrides = {}, overrides: Partial<KafkaConsumerProps> = {}) {
  const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
    vpcId: 'vpc-0123456789abcdef0',
    availabilityZones: ['us-east-1a', 'us-east-1b'],
    privateSubnetIds: ['subnet-0private0000000a', 'subnet-0private0000000b'],
    privateSubnetRouteTableIds: ['rtb-0private0000000a', 'rtb-0private0000000b'],
  });
  const given = typeof redis === 'function' ? redis(stack) : redis;
  return new KafkaConsumer(stack, 'Consumer', {
    consumerName: 'payments',
    source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
    topic: 'payments',
    consumerGroupId: 'payments',
    entry: FIXTURE_ENTRY,
    redis: {
      cache: given.cache ?? {
        kind: 'serverless',
        name: 'payments-cache',
        endpoint: SERVERLESS_ENDPOINT,
        securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'CacheSg', CACHE_SG)],
      },
      vpc,
      auth: { iam: { user: 'payments-consumer' } },
      ...given,
    },
    ...overrides,
  });
}

function build(redis: RedisOverrides = {}): Built {
  const app = projectApp({ builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Payments', { env: ENV });
  const consumer = consumerOn(stack, redis);
  return { app, stack, template: Template.fromStack(stack), consumer };
}

function variables(template: Template): Record<string, string> {
  const fn = onlyResource(template, 'AWS::Lambda::Function');
  return (fn.Properties.Environment as { Variables: Record<string, string> }).Variables;
}

const connectPairs = (template: Template) =>
  allowedPairs(policyStatements(template)).filter((pair) => /elasticache:|memorydb:/.test(pair));

describe('KafkaConsumer with a Redis inbox on ElastiCache Serverless, IAM auth', () => {
  let built: Built;
  beforeAll(() => {
    built = build();
  });

  it('places the function in the VPC, private subnets, with a security group of its own', () => {
    const fn = onlyResource(built.template, 'AWS::Lambda::Function');
    const ownGroup = logicalId(built.consumer.redis?.securityGroup ?? built.stack);
    expect(fn.Properties.VpcConfig).toEqual({
      SubnetIds: ['subnet-0private0000000a', 'subnet-0private0000000b'],
      SecurityGroupIds: [{ 'Fn::GetAtt': [ownGroup, 'GroupId'] }],
    });
  });

  it("lets the function out to the cache's security group on 6379 only, and the cache's group let it in", () => {
    const ownGroup = logicalId(built.consumer.redis?.securityGroup ?? built.stack);
    expect(
      onlyResource(built.template, 'AWS::EC2::SecurityGroup').Properties.SecurityGroupEgress,
    ).toBeUndefined();
    expect(onlyResource(built.template, 'AWS::EC2::SecurityGroupEgress').Properties).toMatchObject({
      GroupId: { 'Fn::GetAtt': [ownGroup, 'GroupId'] },
      IpProtocol: 'tcp',
      FromPort: 6379,
      ToPort: 6379,
      DestinationSecurityGroupId: CACHE_SG,
    });
    expect(onlyResource(built.template, 'AWS::EC2::SecurityGroupIngress').Properties).toMatchObject({
      GroupId: CACHE_SG,
      IpProtocol: 'tcp',
      FromPort: 6379,
      ToPort: 6379,
      SourceSecurityGroupId: { 'Fn::GetAtt': [ownGroup, 'GroupId'] },
    });
  });

  it('grants exactly elasticache:Connect on the serverless cache and the user', () => {
    expect(connectPairs(built.template)).toEqual([
      'Allow elasticache:Connect on "arn:aws:elasticache:us-east-1:123456789012:serverlesscache:payments-cache"',
      'Allow elasticache:Connect on "arn:aws:elasticache:us-east-1:123456789012:user:payments-consumer"',
    ]);
  });

  it('allows no DynamoDB or Secrets Manager action, and the VPC actions a function in a VPC needs', () => {
    const pairs = allowedPairs(policyStatements(built.template));
    expect(pairs.filter((pair) => /dynamodb:|secretsmanager:/.test(pair))).toEqual([]);
    for (const action of FUNCTION_VPC_ACTIONS) expect(pairs).toContain(`Allow ${action} on "*"`);
  });

  it('sets the REDIS_* variables for IAM in cluster mode, which redisInbox() reads as they are', () => {
    const vars = variables(built.template);
    expect(vars).toMatchObject({
      [env.host.env]: SERVERLESS_ENDPOINT,
      [env.port.env]: '6379',
      [env.tls.env]: 'on',
      [env.cluster.env]: 'on',
      [env.auth.env]: 'iam',
      [env.user.env]: 'payments-consumer',
      [env.cacheName.env]: 'payments-cache',
      [env.cacheKind.env]: 'serverless',
      CONSUMER_NAME: 'payments',
    });
    expect(Object.keys(vars)).not.toContain('INBOX_TABLE_NAME');
    expect(Object.keys(vars)).not.toContain(env.secretArn.env);
    expect(readRedisSettings({}, vars)).toMatchObject({ auth: 'iam', host: SERVERLESS_ENDPOINT });
  });

  it('passes cdk-nag, acknowledging only findings that exist', () => {
    expect(unacknowledgedFindings(built.app)).toEqual([]);
    const findings = allFindings(built.app).map((finding) => `${finding.rule} ${finding.path}`);
    for (const ack of acknowledgements(built.app)) {
      expect(findings.some((finding) => finding.startsWith(ack.rule))).toBe(true);
    }
  });
});

describe('KafkaConsumer with a Redis inbox on a node-based replication group, secret auth', () => {
  let built: Built;
  beforeAll(() => {
    built = build((stack) => ({
      cache: {
        kind: 'node-based',
        name: 'payments-rg',
        endpoint: 'master.payments-rg.abc123.use1.cache.amazonaws.com',
        port: 6380,
        clusterMode: false,
        securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'CacheSg', CACHE_SG)],
      },
      auth: { secret: secretsmanager.Secret.fromSecretCompleteArn(stack, 'CacheSecret', SECRET_ARN) },
    }));
  });

  it('grants read on that secret only, and no connect action', () => {
    const pairs = allowedPairs(policyStatements(built.template));
    expect(pairs.filter((pair) => pair.includes('secretsmanager:'))).toEqual([
      `Allow secretsmanager:DescribeSecret on "${SECRET_ARN}"`,
      `Allow secretsmanager:GetSecretValue on "${SECRET_ARN}"`,
    ]);
    expect(connectPairs(built.template)).toEqual([]);
  });

  it('sets secret auth with its ARN, the port, no cluster mode and no IAM user', () => {
    const vars = variables(built.template);
    expect(vars).toMatchObject({
      [env.port.env]: '6380',
      [env.cluster.env]: 'off',
      [env.auth.env]: 'secret',
      [env.secretArn.env]: SECRET_ARN,
    });
    for (const name of [env.user.env, env.cacheName.env, env.cacheKind.env]) {
      expect(Object.keys(vars)).not.toContain(name);
    }
    expect(readRedisSettings({}, vars)).toMatchObject({ auth: 'secret', port: 6380 });
  });

  it("lets the function out to the cache's port and to HTTPS (Secrets Manager), and in on the cache's group", () => {
    expect(onlyResource(built.template, 'AWS::EC2::SecurityGroup').Properties.SecurityGroupEgress).toEqual([
      {
        CidrIp: '0.0.0.0/0',
        Description: 'HTTPS to Secrets Manager for the cache secret',
        FromPort: 443,
        IpProtocol: 'tcp',
        ToPort: 443,
      },
    ]);
    expect(onlyResource(built.template, 'AWS::EC2::SecurityGroupEgress').Properties).toMatchObject({
      FromPort: 6380,
      DestinationSecurityGroupId: CACHE_SG,
    });
    expect(onlyResource(built.template, 'AWS::EC2::SecurityGroupIngress').Properties).toMatchObject({
      GroupId: CACHE_SG,
      FromPort: 6380,
      ToPort: 6380,
    });
  });

  it('passes cdk-nag', () => {
    expect(unacknowledgedFindings(built.app)).toEqual([]);
  });
});

describe('KafkaConsumer with a Redis inbox on MemoryDB, IAM auth', () => {
  it('grants exactly memorydb:Connect on the cluster and the user, and signs for MemoryDB', () => {
    const { template } = build((stack) => ({
      cache: {
        kind: 'memorydb',
        name: 'payments-db',
        endpoint: 'clustercfg.payments-db.abc123.memorydb.us-east-1.amazonaws.com',
        securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'CacheSg', CACHE_SG)],
      },
    }));

    expect(connectPairs(template)).toEqual([
      'Allow memorydb:Connect on "arn:aws:memorydb:us-east-1:123456789012:cluster/payments-db"',
      'Allow memorydb:Connect on "arn:aws:memorydb:us-east-1:123456789012:user/payments-consumer"',
    ]);
    expect(variables(template)).toMatchObject({ [env.cacheKind.env]: 'memorydb', [env.cluster.env]: 'on' });
  });
});

describe('KafkaConsumer with a Redis inbox: refused props', () => {
  const problemsOf = (
    redis: RedisOverrides,
    overrides: (stack: Stack) => Partial<KafkaConsumerProps> = () => ({}),
  ) => {
    const stack = new Stack(projectApp({ builtinCloudFormationValidation: false }), 'Refused', { env: ENV });
    try {
      consumerOn(stack, redis, overrides(stack));
    } catch (error) {
      if (error instanceof InvalidPropsError) return error.problems;
      throw error;
    }
    return [];
  };

  it('refuses a node-based cache without clusterMode, a cache name AWS would not keep, and IAM without TLS', () => {
    expect(
      problemsOf((stack) => ({
        cache: {
          kind: 'node-based',
          name: 'Payments_RG',
          endpoint: 'master.payments-rg.abc123.use1.cache.amazonaws.com',
          securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'CacheSg', CACHE_SG)],
        },
        tls: false,
      })),
    ).toEqual([
      `redis.cache.name "Payments_RG" ${env.cacheName.patternHint}`,
      "redis.cache.clusterMode is missing: say whether redis.cache.endpoint is the replication group's configuration endpoint (true, cluster mode enabled) or its primary endpoint (false)",
      'redis.tls is false with redis.auth.iam: ElastiCache and MemoryDB accept IAM tokens over TLS only; remove tls: false',
    ]);
  });

  it('refuses no security group, REDIS_* in environment, an outbox, and a second inbox', () => {
    expect(
      problemsOf(
        {
          cache: {
            kind: 'serverless',
            name: 'payments-cache',
            endpoint: SERVERLESS_ENDPOINT,
            securityGroups: [],
          },
        },
        (stack) => ({
          inboxTable: new InboxTable(stack, 'Inbox'),
          outbox: new OutboxTable(stack, 'Outbox'),
          environment: { REDIS_HOST: 'elsewhere' },
        }),
      ),
    ).toEqual([
      'both inboxTable and redis are given: keep the one your handler uses (store: postgresInbox() is postgres, redisInbox() is redis)',
      "redis.cache.securityGroups is empty: pass the cache's security groups, so the function may be let in",
      'outbox is given with redis: Redis cannot commit an outbox append with the inbox row (its effects are calls, docs/redis.md); remove outbox',
      "environment sets REDIS_HOST: these come from the construct's props; remove them",
    ]);
  });
});
