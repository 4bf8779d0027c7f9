/**
 * A consumer whose inbox is the team's own Redis or Valkey cache (`store: redisInbox()` in its code): the
 * network path to it (the function in the VPC, a security group of its own, ingress on the cache's), the
 * one credential it may use (connect to the cache as one IAM-enabled user, or read one secret), and the
 * variables `redisInbox()` reads at cold start (named once, in lambdas/redis/redis-settings.ts).
 * docs/redis.md#deploying
 */
import { ArnFormat, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  IAM_NEEDS_TLS,
  REDIS_SETTINGS,
  type RedisSettingName,
  type RedisSettings,
} from '../lambdas/redis/redis-settings.js';
import { FUNCTION_VPC_ACTIONS } from './postgres-database.js';
import type { RedisAuth, RedisCache, RedisInboxProps } from './redis-props.js';

/** Every variable the construct owns for a Redis consumer: `environment` may not set them. */
export const REDIS_VARIABLES: readonly string[] = Object.values(REDIS_SETTINGS).map(
  (definition) => definition.env,
);

/** Which login `auth` is, as `REDIS_AUTH` names it. */
export function redisAuthKind(auth: RedisAuth): RedisSettings['auth'] {
  if (auth === 'none') return 'none';
  return 'iam' in auth ? 'iam' : 'secret';
}

/** What is wrong with the `redis` prop, each line saying what to change. */
export function redisProblems(props: RedisInboxProps): string[] {
  const problems: string[] = [];
  const { cache } = props;
  const known = (value: string): boolean => !Token.isUnresolved(value);
  const { pattern, patternHint } = REDIS_SETTINGS.cacheName;
  if (known(cache.name) && !pattern.test(cache.name)) {
    problems.push(`redis.cache.name "${cache.name}" ${patternHint}`);
  }
  if (known(cache.endpoint) && cache.endpoint.trim() === '') {
    problems.push("redis.cache.endpoint is empty: give the cache's endpoint address");
  }
  const { min, max } = REDIS_SETTINGS.port;
  if (cache.port !== undefined && (!Number.isInteger(cache.port) || cache.port < min || cache.port > max)) {
    problems.push(`redis.cache.port is ${cache.port}: set a whole number from ${min} to ${max}`);
  }
  if (cache.securityGroups.length === 0) {
    problems.push(
      "redis.cache.securityGroups is empty: pass the cache's security groups, so the function may be let in",
    );
  }
  if (cache.kind === 'node-based' && cache.clusterMode === undefined) {
    problems.push(
      "redis.cache.clusterMode is missing: say whether redis.cache.endpoint is the replication group's configuration endpoint (true, cluster mode enabled) or its primary endpoint (false)",
    );
  }
  if (props.auth !== 'none' && 'iam' in props.auth) {
    const { user } = props.auth.iam;
    if (known(user) && user.trim() === '') {
      problems.push('redis.auth.iam.user is empty: name the IAM-enabled user the role may connect as');
    }
    if (props.tls === false)
      problems.push(`redis.tls is false with redis.auth.iam: ${IAM_NEEDS_TLS}; remove tls: false`);
  }
  return problems;
}

/**
 * A consumer's way into its Redis cache: made before the function (which needs its security group and
 * variables), then bound to its role (grants, ingress).
 */
export class RedisInboxConnection extends Construct {
  /** The function's security group: egress to the cache's port (and HTTPS with `secret` auth) only. */
  public readonly securityGroup: ec2.SecurityGroup;
  /** The cache connected to. */
  public readonly cache: RedisCache;
  /** The VPC the function is placed in. */
  public readonly vpc: ec2.IVpc;
  /** The function's subnets; undefined: CDK's default (private) selection. */
  public readonly vpcSubnets: ec2.SubnetSelection | undefined;
  /** How the function logs in. */
  public readonly auth: RedisAuth;
  readonly #props: RedisInboxProps;

  public constructor(scope: Construct, id: string, props: RedisInboxProps) {
    super(scope, id);
    this.#props = props;
    this.cache = props.cache;
    this.vpc = props.vpc;
    this.vpcSubnets = props.vpcSubnets;
    this.auth = props.auth;
    this.securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      // Nothing but the cache (and Secrets Manager with `secret` auth): add what your effect calls with
      // consumer.function.connections.
      allowAllOutbound: false,
      description: 'Kafka consumer function: to its Redis cache',
    });
    if (redisAuthKind(props.auth) === 'secret') {
      // Secrets Manager's endpoint (public, or an interface endpoint in the VPC) has no address known here.
      this.securityGroup.addEgressRule(
        ec2.Peer.anyIpv4(),
        ec2.Port.tcp(443),
        'HTTPS to Secrets Manager for the cache secret',
      );
    }
  }

  /** The cache's port. */
  public get port(): number {
    return this.cache.port ?? REDIS_SETTINGS.port.default;
  }

  /** The variables `redisInbox()` reads at cold start, named by REDIS_SETTINGS (KafkaConsumer sets them). */
  public environment(): Record<string, string> {
    const { cache, auth } = this;
    const kind = redisAuthKind(auth);
    const values: Partial<Record<RedisSettingName, string>> = {
      host: cache.endpoint,
      port: String(this.port),
      tls: this.#props.tls === false ? 'off' : 'on',
      cluster: (cache.clusterMode ?? cache.kind !== 'node-based') ? 'on' : 'off',
      auth: kind,
      ...(auth !== 'none' && 'iam' in auth
        ? { user: auth.iam.user, cacheName: cache.name, cacheKind: cache.kind }
        : {}),
      ...(auth !== 'none' && 'secret' in auth ? { secretArn: auth.secret.secretArn } : {}),
    };
    return Object.fromEntries(
      Object.entries(values).map(([name, value]) => [REDIS_SETTINGS[name as RedisSettingName].env, value]),
    );
  }

  /** The function's credential, its network interfaces and the cache's ingress: called once by KafkaConsumer. */
  public bind(role: iam.Role): void {
    const { auth } = this;
    if (auth !== 'none' && 'iam' in auth) {
      role.addToPrincipalPolicy(this.#connectStatement(auth.iam.user));
    } else if (auth !== 'none') {
      auth.secret.grantRead(role);
    }
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: [...FUNCTION_VPC_ACTIONS], resources: ['*'] }),
    );
    // Ingress on the cache's security groups from the function's, on the cache's port; Connections adds
    // the matching egress on the function's group, which allows nothing else outbound.
    new ec2.Connections({
      securityGroups: [...this.cache.securityGroups],
      defaultPort: ec2.Port.tcp(this.port),
    }).allowDefaultPortFrom(this.securityGroup, 'Kafka consumer function (msk-inbox) to Redis');
  }

  /**
   * Connect to the cache as `user`, and nothing else: `elasticache:Connect` on the cache and the user, or
   * MemoryDB's `memorydb:Connect` (docs/aws-facts.md#elasticache-iam-authentication).
   */
  #connectStatement(user: string): iam.PolicyStatement {
    const stack = Stack.of(this);
    const { kind, name } = this.cache;
    if (kind === 'memorydb') {
      const arn = (resource: string, resourceName: string) =>
        stack.formatArn({
          service: 'memorydb',
          resource,
          resourceName,
          arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
        });
      return new iam.PolicyStatement({
        actions: ['memorydb:Connect'],
        resources: [arn('cluster', name), arn('user', user)],
      });
    }
    const arn = (resource: string, resourceName: string) =>
      stack.formatArn({
        service: 'elasticache',
        resource,
        resourceName,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
    return new iam.PolicyStatement({
      actions: ['elasticache:Connect'],
      resources: [
        arn(kind === 'serverless' ? 'serverlesscache' : 'replicationgroup', name),
        arn('user', user),
      ],
    });
  }
}
