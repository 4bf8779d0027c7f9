/**
 * What the IAM tokens this package signs have in common (the outbox relay's MSK token, the Redis store's
 * ElastiCache and MemoryDB token): credentials kept until they near their expiry, SHA-256 on node:crypto
 * for @smithy/signature-v4 (so no bundle carries @aws-crypto's hashing), and the presigned URL's query
 * written as the SDK's formatUrl writes it (docs/outbox.md#kafka-connection,
 * docs/aws-facts.md#elasticache-iam-authentication).
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

/** An identity to sign with: the function role's, from the Lambda credential chain. */
export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

/** Credentials are refreshed this long before they expire, so no token is signed with dying ones. */
export const CREDENTIALS_REFRESH_MARGIN_MS = 5 * 60_000;

/** The provider's credentials, asked again only when they near their expiry (the HTTP provider is a request). */
export function cachedCredentials(
  provider: () => Promise<SigningCredentials>,
  nowMs: () => number = Date.now,
): () => Promise<SigningCredentials> {
  let current: SigningCredentials | undefined;
  return async () => {
    const expiresAt = current?.expiration?.getTime();
    if (
      current === undefined ||
      (expiresAt !== undefined && expiresAt - CREDENTIALS_REFRESH_MARGIN_MS < nowMs())
    ) {
      current = await provider();
    }
    return current;
  };
}

/** As @aws-sdk/util-format-url writes a query: keys sorted, keys and values escaped per RFC 3986. */
export function presignedQueryString(query: Readonly<Record<string, string>>): string {
  return Object.keys(query)
    .sort()
    .map((key) => `${escapeUri(key)}=${escapeUri(query[key] as string)}`)
    .join('&');
}

function escapeUri(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

type SourceData = string | ArrayBuffer | ArrayBufferView;

/** SHA-256, or HMAC-SHA-256 with a secret: the hash interface SignatureV4 asks for, on node:crypto. */
export class NodeSha256 {
  readonly #secret: SourceData | undefined;
  #hash: Hash | Hmac;

  constructor(secret?: SourceData) {
    this.#secret = secret;
    this.#hash = NodeSha256.#create(secret);
  }

  update(data: SourceData): void {
    this.#hash.update(bytesOf(data));
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.#hash.digest()));
  }

  reset(): void {
    this.#hash = NodeSha256.#create(this.#secret);
  }

  static #create(secret: SourceData | undefined): Hash | Hmac {
    return secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
}

function bytesOf(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}
