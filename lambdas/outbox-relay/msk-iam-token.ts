/**
 * The SASL/OAUTHBEARER token MSK's IAM access control takes: a SigV4 presigned URL for the action
 * `kafka-cluster:Connect` on `kafka.<region>.amazonaws.com`, base64url-encoded without padding. It is the
 * algorithm of AWS's aws-msk-iam-sasl-signer-js (src/getMSKAuthToken.ts, release 1.0.3), written here
 * with @smithy/signature-v4 and node:crypto (lambdas/core/sigv4-presign.ts) so the relay's bundle carries
 * neither that package nor its STS client and @aws-crypto hashing (docs/outbox.md#kafka-connection):
 * - GET https://kafka.<region>.amazonaws.com/?Action=kafka-cluster%3AConnect, host the only signed header;
 * - presigned for service `kafka-cluster`, X-Amz-Expires 900 s, or less when the credentials expire sooner;
 * - `User-Agent` added to the query after signing (unsigned, as the signer does);
 * - the URL's query sorted and URI-escaped as the SDK's formatUrl writes it.
 * https://docs.aws.amazon.com/msk/latest/developerguide/iam-access-control.html
 */
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256, presignedQueryString, type SigningCredentials } from '../core/sigv4-presign.js';

export type MskCredentials = SigningCredentials;

export interface MskIamTokenOptions {
  /** The cluster's region (Lambda's AWS_REGION). */
  readonly region: string;
  /** The function role's credentials (lambda-credential-provider.ts). */
  readonly credentials: () => Promise<MskCredentials>;
  /** @default the system clock */
  readonly now?: () => Date;
}

export interface MskIamToken {
  /** The OAUTHBEARER token value. */
  readonly token: string;
  /** Epoch ms after which MSK refuses it. */
  readonly expiresAtMs: number;
}

/** The signer's: MSK refuses a token valid for longer. */
export const TOKEN_LIFETIME_SECONDS = 900;
const SIGNING_SERVICE = 'kafka-cluster';
const CONNECT_ACTION = 'kafka-cluster:Connect';
/** Says, in MSK's logs, which client connected; the signer sends its own name the same way. */
export const TOKEN_USER_AGENT = 'msk-inbox-outbox-relay';

export async function mskIamToken(options: MskIamTokenOptions): Promise<MskIamToken> {
  const credentials = await options.credentials();
  if (!credentials.accessKeyId || !credentials.secretAccessKey) {
    throw new Error('No AWS credentials to sign the MSK IAM token with');
  }
  const now = (options.now ?? (() => new Date()))();
  const hostname = `kafka.${options.region}.amazonaws.com`;
  const signer = new SignatureV4({
    service: SIGNING_SERVICE,
    region: options.region,
    credentials,
    sha256: NodeSha256,
    applyChecksum: false,
  });
  // Whole seconds: X-Amz-Expires is an integer, and credentials about to expire make a shorter token.
  const expiresIn =
    credentials.expiration === undefined
      ? TOKEN_LIFETIME_SECONDS
      : Math.max(
          1,
          Math.min(
            TOKEN_LIFETIME_SECONDS,
            Math.floor((credentials.expiration.getTime() - now.getTime()) / 1000),
          ),
        );
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      headers: { host: hostname },
      query: { Action: CONNECT_ACTION },
    },
    { expiresIn, signingDate: now },
  );
  const query = { ...signed.query, 'User-Agent': TOKEN_USER_AGENT } as Record<string, string>;
  const url = `https://${hostname}/?${presignedQueryString(query)}`;
  return {
    // base64url has no padding in Node's encoding; the signer strips it too.
    token: Buffer.from(url, 'utf8').toString('base64url'),
    expiresAtMs: now.getTime() + expiresIn * 1000,
  };
}
