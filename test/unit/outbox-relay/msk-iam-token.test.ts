/**
 * The MSK IAM token (lambdas/outbox-relay/msk-iam-token.ts) with fixed credentials and clock: its URL's
 * shape, as aws-msk-iam-sasl-signer-js makes it, and a signature checked against SigV4 computed by hand
 * (test/support/sigv4.ts), not through the signer.
 */
import { describe, expect, it } from 'vitest';
import { mskIamToken, TOKEN_USER_AGENT } from '../../../lambdas/outbox-relay/msk-iam-token.js';
import { expectedPresignSignature } from '../../support/sigv4.js';

const SIGNING_DATE = new Date('2026-03-04T05:06:07.000Z');
const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session/token+with=chars',
};

async function tokenUrl(credentials: Parameters<typeof mskIamToken>[0]['credentials'], now = SIGNING_DATE) {
  const token = await mskIamToken({ region: 'eu-west-1', credentials, now: () => now });
  return { ...token, url: new URL(Buffer.from(token.token, 'base64url').toString('utf8')) };
}

describe('mskIamToken', () => {
  it('is a base64url (unpadded) presigned GET for kafka-cluster:Connect on the regional kafka host', async () => {
    const { token, url, expiresAtMs } = await tokenUrl(async () => CREDENTIALS);

    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(url.protocol).toBe('https:');
    expect(url.host).toBe('kafka.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/');
    const query = Object.fromEntries(url.searchParams);
    expect(query).toEqual({
      Action: 'kafka-cluster:Connect',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIDEXAMPLE/20260304/eu-west-1/kafka-cluster/aws4_request',
      'X-Amz-Date': '20260304T050607Z',
      'X-Amz-Expires': '900',
      'X-Amz-Security-Token': CREDENTIALS.sessionToken,
      'X-Amz-SignedHeaders': 'host',
      'X-Amz-Signature': expect.stringMatching(/^[0-9a-f]{64}$/),
      'User-Agent': TOKEN_USER_AGENT,
    });
    // Sorted, as the SDK's formatUrl writes the query.
    const keys = [...url.searchParams.keys()];
    expect(keys).toEqual([...keys].sort());
    expect(expiresAtMs).toBe(SIGNING_DATE.getTime() + 900_000);
  });

  it('carries the SigV4 signature of its own query, User-Agent left out of what is signed', async () => {
    const { url } = await tokenUrl(async () => CREDENTIALS);

    expect(url.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(url));
  });

  it('has no security token without a session, and lives no longer than the credentials', async () => {
    const expiration = new Date(SIGNING_DATE.getTime() + 120_500);
    const { url, expiresAtMs } = await tokenUrl(async () => ({
      accessKeyId: CREDENTIALS.accessKeyId,
      secretAccessKey: CREDENTIALS.secretAccessKey,
      expiration,
    }));

    expect(url.searchParams.has('X-Amz-Security-Token')).toBe(false);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('120');
    expect(expiresAtMs).toBe(SIGNING_DATE.getTime() + 120_000);
    expect(url.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(url));
  });

  it('refuses to sign without credentials', async () => {
    await expect(
      mskIamToken({
        region: 'eu-west-1',
        credentials: async () => ({ accessKeyId: '', secretAccessKey: '' }),
      }),
    ).rejects.toThrow(/No AWS credentials/);
  });
});

const expectedSignature = (url: URL): string =>
  expectedPresignSignature(url, CREDENTIALS.secretAccessKey, ['User-Agent']);
