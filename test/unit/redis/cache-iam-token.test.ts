/**
 * The ElastiCache and MemoryDB IAM token (lambdas/redis/cache-iam-token.ts) with fixed credentials and
 * clock: the URL AWS's samples make (docs/aws-facts.md#elasticache-iam-authentication), no `http://`, and
 * a signature checked against SigV4 computed by hand (test/support/sigv4.ts), not through the signer.
 */
import { describe, expect, it } from 'vitest';
import { type CacheIamTokenRequest, cacheIamToken } from '../../../lambdas/redis/cache-iam-token.js';
import { expectedPresignSignature } from '../../support/sigv4.js';

const SIGNING_DATE = new Date('2026-03-04T05:06:07.000Z');
const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session/token+with=chars',
};

async function tokenUrl(request: Partial<CacheIamTokenRequest> = {}) {
  const token = await cacheIamToken({
    cacheName: 'payments-cache',
    cacheKind: 'serverless',
    user: 'payments-consumer',
    region: 'eu-west-1',
    credentials: async () => CREDENTIALS,
    now: () => SIGNING_DATE,
    ...request,
  });
  return { token, url: new URL(`http://${token}`) };
}

describe('cacheIamToken', () => {
  it('is a presigned GET of Action=connect as the user on the serverless cache, without http://', async () => {
    const { token, url } = await tokenUrl();

    expect(token.startsWith('payments-cache/?')).toBe(true);
    expect(url.host).toBe('payments-cache');
    expect(url.pathname).toBe('/');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      Action: 'connect',
      User: 'payments-consumer',
      ResourceType: 'ServerlessCache',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIDEXAMPLE/20260304/eu-west-1/elasticache/aws4_request',
      'X-Amz-Date': '20260304T050607Z',
      'X-Amz-Expires': '900',
      'X-Amz-Security-Token': CREDENTIALS.sessionToken,
      'X-Amz-SignedHeaders': 'host',
      'X-Amz-Signature': expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('carries the SigV4 signature of its own query, the session token signed with it', async () => {
    const { url } = await tokenUrl();

    expect(url.searchParams.get('X-Amz-Signature')).toBe(
      expectedPresignSignature(url, CREDENTIALS.secretAccessKey),
    );
  });

  it('has no ResourceType for a node-based replication group', async () => {
    const { url } = await tokenUrl({ cacheKind: 'node-based', cacheName: 'payments-rg' });

    expect(url.host).toBe('payments-rg');
    expect(url.searchParams.has('ResourceType')).toBe(false);
    expect(url.searchParams.get('X-Amz-Credential')).toBe(
      'AKIDEXAMPLE/20260304/eu-west-1/elasticache/aws4_request',
    );
    expect(url.searchParams.get('X-Amz-Signature')).toBe(
      expectedPresignSignature(url, CREDENTIALS.secretAccessKey),
    );
  });

  it('is signed for the memorydb service for a MemoryDB cluster, without ResourceType', async () => {
    const { url } = await tokenUrl({ cacheKind: 'memorydb', cacheName: 'payments-db' });

    expect(url.searchParams.get('X-Amz-Credential')).toBe(
      'AKIDEXAMPLE/20260304/eu-west-1/memorydb/aws4_request',
    );
    expect(url.searchParams.has('ResourceType')).toBe(false);
    expect(url.searchParams.get('X-Amz-Signature')).toBe(
      expectedPresignSignature(url, CREDENTIALS.secretAccessKey),
    );
  });

  it('is a different token at another time, and none without credentials', async () => {
    const first = await tokenUrl();
    const later = await tokenUrl({ now: () => new Date(SIGNING_DATE.getTime() + 15 * 60_000) });

    expect(later.url.searchParams.get('X-Amz-Date')).toBe('20260304T052107Z');
    expect(later.token).not.toBe(first.token);
    await expect(
      tokenUrl({ credentials: async () => ({ accessKeyId: '', secretAccessKey: '' }) }),
    ).rejects.toThrow(/No AWS credentials/);
  });
});
