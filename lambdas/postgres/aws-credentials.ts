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
    let secret = readSecret(settings.secretArn);
    let readAtMs = Date.now();
    const { username } = await secret;
    const password = async (): Promise<string> => {
      if (Date.now() - readAtMs > SECRET_MAX_AGE_MS) {
        secret = readSecret(settings.secretArn);
        readAtMs = Date.now();
      }
      return (await secret).password;
    };
    return { user: username, password };
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
