/**
 * KafkaConsumer's `redis` prop, typed: the team's existing cache (ElastiCache Serverless, a node-based
 * ElastiCache replication group, or a MemoryDB cluster), how the function logs in, and where it runs.
 * redis-cache.ts builds from it.
 */
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { REDIS_SETTINGS } from '../lambdas/redis/redis-settings.js';
import type { SameAs } from './postgres-props.js';

/**
 * What the cache is: an ElastiCache Serverless cache, a node-based ElastiCache replication group, or a
 * MemoryDB cluster. It decides how an IAM token is signed and which ARNs the role may connect to.
 */
export type RedisCacheKind = 'serverless' | 'node-based' | 'memorydb';

// RedisCacheKind is written out for the API report; this fails the build when the table's choices differ.
const KIND_MATCHES_SETTINGS: SameAs<RedisCacheKind, (typeof REDIS_SETTINGS.cacheKind.choices)[number]> = true;
void KIND_MATCHES_SETTINGS;

/** The cache the function connects to. */
export interface RedisCache {
  /** An ElastiCache Serverless cache, a node-based replication group, or a MemoryDB cluster. */
  readonly kind: RedisCacheKind;
  /**
   * The serverless cache's name, the replication group's id, or the MemoryDB cluster's name, as AWS keeps
   * it (lower case): what an IAM token is signed for and the role is granted on (`REDIS_CACHE_NAME`).
   */
  readonly name: string;
  /**
   * The endpoint's address (`REDIS_HOST`): a serverless cache's endpoint, a replication group's
   * configuration endpoint (cluster mode enabled) or primary endpoint (disabled), a MemoryDB cluster's
   * endpoint.
   */
  readonly endpoint: string;
  /**
   * Its port (`REDIS_PORT`).
   * @default 6379
   */
  readonly port?: number;
  /** The cache's security groups: the construct lets the function in on the port. */
  readonly securityGroups: readonly ec2.ISecurityGroup[];
  /**
   * Whether the endpoint is a cluster's, with hash slots (`REDIS_CLUSTER`): a serverless cache's and a
   * MemoryDB cluster's are; a replication group's configuration endpoint is, its primary endpoint is not.
   * @default true for `serverless` and `memorydb`; a `node-based` cache must say
   */
  readonly clusterMode?: boolean;
}

/**
 * How the function logs in; never a password in a variable. `iam`: a token signed per connection as the
 * IAM-enabled `user` (ElastiCache: its user id, equal to its name; MemoryDB: its name), the role allowed
 * to connect to the cache as that user only. `secret`: the password (and user) of a Secrets Manager
 * secret, JSON with `password` and `username` (docs/redis.md#authentication), the role allowed to read
 * that secret only. `'none'`: no login (a cache with neither users nor an AUTH token).
 */
export type RedisAuth =
  | { readonly iam: { readonly user: string } }
  | { readonly secret: secretsmanager.ISecret }
  | 'none';

/** KafkaConsumer's `redis` prop: the team's existing cache, and how the function reaches it. */
export interface RedisInboxProps {
  /** The cache to connect to. */
  readonly cache: RedisCache;
  /** The VPC the cache is reached in: the function is placed in it. */
  readonly vpc: ec2.IVpc;
  /**
   * The function's subnets. They need a route to Secrets Manager with `secret` auth (a NAT gateway or an
   * interface endpoint); `iam` auth signs its tokens locally and needs none.
   * @default - the VPC's private subnets (CDK's default selection for a function)
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** How the function logs in: `{ iam: { user } }`, `{ secret }` or `'none'`. */
  readonly auth: RedisAuth;
  /**
   * TLS to the cache, its certificate checked (`REDIS_TLS`). IAM authentication requires it.
   * @default true
   */
  readonly tls?: boolean;
}
