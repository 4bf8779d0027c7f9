/**
 * The password an IAM-enabled user gives ElastiCache (Valkey 7.2+, Redis OSS 7+) or MemoryDB: a SigV4
 * presigned `GET http://<cache name>/?Action=connect&User=<user>` (with `ResourceType=ServerlessCache` for
 * an ElastiCache Serverless cache), for the service `elasticache` (MemoryDB: `memorydb`) in the cache's
 * region, expiring in 900 s, written without its `http://`. The cache accepts it for 15 minutes, in AUTH
 * or HELLO over TLS. docs/aws-facts.md#elasticache-iam-authentication
 */
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256, presignedQueryString, type SigningCredentials } from '../core/sigv4-presign.js';
import type { RedisSettings } from './redis-settings.js';

export type CacheKind = RedisSettings['cacheKind'];

export interface CacheIamTokenRequest {
  /** The serverless cache's name, the replication group's id, or the MemoryDB cluster's name. */
  readonly cacheName: string;
  readonly cacheKind: CacheKind;
  /** The IAM-enabled user (ElastiCache: its id, equal to its name; MemoryDB: its name). */
  readonly user: string;
  /** The cache's region (Lambda's AWS_REGION). */
  readonly region: string;
  /** The function role's credentials. */
  readonly credentials: () => Promise<SigningCredentials>;
  /** @default the system clock */
  readonly now?: () => Date;
}

/** What the cache accepts: a token signed longer ago is refused. */
export const IAM_TOKEN_LIFETIME_SECONDS = 900;

const SIGNING_SERVICE: Readonly<Record<CacheKind, string>> = {
  serverless: 'elasticache',
  'node-based': 'elasticache',
  memorydb: 'memorydb',
};

export async function cacheIamToken(request: CacheIamTokenRequest): Promise<string> {
  const credentials = await request.credentials();
  if (!credentials.accessKeyId || !credentials.secretAccessKey) {
    throw new Error('No AWS credentials to sign the cache’s IAM token with');
  }
  const signer = new SignatureV4({
    service: SIGNING_SERVICE[request.cacheKind],
    region: request.region,
    credentials,
    sha256: NodeSha256,
    applyChecksum: false,
  });
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'http:',
      hostname: request.cacheName,
      path: '/',
      headers: { host: request.cacheName },
      query: {
        Action: 'connect',
        User: request.user,
        ...(request.cacheKind === 'serverless' ? { ResourceType: 'ServerlessCache' } : {}),
      },
    },
    { expiresIn: IAM_TOKEN_LIFETIME_SECONDS, signingDate: (request.now ?? (() => new Date()))() },
  );
  return `${request.cacheName}/?${presignedQueryString(signed.query as Record<string, string>)}`;
}
