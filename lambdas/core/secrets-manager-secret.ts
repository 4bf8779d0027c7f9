/**
 * A login kept in a Secrets Manager secret, as the Postgres and Redis stores read one: the secret's text,
 * read at the first connection, and again for a new connection once SECRET_MAX_AGE_MS has passed, so a
 * rotated password is picked up (docs/postgres.md#connections, docs/redis.md#authentication). The client
 * is loaded when first used: a store that signs IAM tokens never evaluates it.
 */
import { ConfigError } from './errors.js';

/** The secret's text (its SecretString); the stores' tests stand a fake Secrets Manager in for it. */
export type SecretText = (secretArn: string) => Promise<string>;

/** How long a secret's password is used for new connections before it is read again. */
export const SECRET_MAX_AGE_MS = 5 * 60_000;

/** GetSecretValue with the function role's credentials. */
export const readSecretText: SecretText = async (secretArn) => {
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({});
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
  if (SecretString === undefined) {
    throw new ConfigError([`the secret ${secretArn} holds binary data: store its login as JSON text`]);
  }
  return SecretString;
};

/**
 * The secret's JSON as an object, or a ConfigError naming the secret and the shape it should have
 * (`shape`, e.g. "JSON with username and password (RDS's shape)").
 */
export function secretObject(secretArn: string, text: string, shape: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError([`the secret ${secretArn} is not ${shape}`]);
  }
  return parsed as Record<string, unknown>;
}

/**
 * `read`'s value, read once and again when a caller asks after SECRET_MAX_AGE_MS. The first read's
 * failure is the caller's (the connection is not made, and the next one reads again); a later read that
 * fails (throttled, unreachable) keeps the value last read, and is tried again at the next ask.
 */
export function refreshingSecret<T>(
  read: () => Promise<T>,
  nowMs: () => number = Date.now,
): () => Promise<T> {
  let last: { readonly value: T; readonly readAtMs: number } | undefined;
  return async () => {
    if (last === undefined) {
      last = { value: await read(), readAtMs: nowMs() };
    } else if (nowMs() - last.readAtMs > SECRET_MAX_AGE_MS) {
      const fresh = await read().catch(() => undefined);
      if (fresh !== undefined) last = { value: fresh, readAtMs: nowMs() };
    }
    return last.value;
  };
}
