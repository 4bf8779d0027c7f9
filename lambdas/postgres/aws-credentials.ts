/**
 * Passwords for RDS: an IAM authentication token per new connection (valid 15 minutes, signed locally by
 * `@aws-sdk/rds-signer`, no request), or a Secrets Manager secret read at the first connection and again
 * for a new connection once SECRET_MAX_AGE_MS has passed, so a rotated password is picked up.
 * docs/postgres.md#connections.
 */
import { ConfigError } from '../core/errors.js';
import type { PoolContext } from './connection.js';
import type { PostgresSettings } from './postgres-settings.js';

export function awsCredentials(settings: PostgresSettings): PoolContext['credentials'] {
  return async () => {
    // Loaded when first used, by the one kind of authentication that needs it: a cold start evaluates
    // neither client for the other (nor for `url`).
    if (settings.auth === 'iam') {
      const { Signer } = await import('@aws-sdk/rds-signer');
      const signer = new Signer({ hostname: settings.host, port: settings.port, username: settings.user });
      return { password: () => signer.getAuthToken() };
    }
    let secret = await readSecret(settings.secretArn);
    let readAtMs = Date.now();
    const password = async (): Promise<string> => {
      if (Date.now() - readAtMs > SECRET_MAX_AGE_MS) {
        // A read that fails (throttled, unreachable) keeps the password last read, and is tried again at
        // the next new connection; the user stays the first read's (single-user rotation).
        const fresh = await readSecret(settings.secretArn).catch(() => undefined);
        if (fresh !== undefined) {
          secret = fresh;
          readAtMs = Date.now();
        }
      }
      return secret.password;
    };
    return { user: secret.username, password };
  };
}

/** How long a secret's password is used for new connections before it is read again. */
const SECRET_MAX_AGE_MS = 5 * 60_000;

interface DatabaseSecret {
  readonly username: string;
  readonly password: string;
}

async function readSecret(secretArn: string): Promise<DatabaseSecret> {
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({});
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
  let parsed: unknown;
  try {
    parsed = JSON.parse(SecretString ?? '');
  } catch {
    throw new ConfigError([`the secret ${secretArn} is not JSON with username and password (RDS's shape)`]);
  }
  const { username, password } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof username !== 'string' || typeof password !== 'string') {
    throw new ConfigError([`the secret ${secretArn} has no string username and password (RDS's shape)`]);
  }
  return { username, password };
}
