/**
 * Passwords for RDS: an IAM authentication token per new connection (valid 15 minutes, signed locally by
 * `@aws-sdk/rds-signer`, no request), or a Secrets Manager secret read at the first connection and again
 * for a new connection once it is SECRET_MAX_AGE_MS old (lambdas/core/secrets-manager-secret.ts), so a
 * rotated password is picked up. docs/postgres.md#connections.
 */
import { ConfigError } from '../core/errors.js';
import { readSecretText, refreshingSecret, secretObject } from '../core/secrets-manager-secret.js';
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
    const secret = refreshingSecret(() => readSecret(settings.secretArn));
    // The user stays the first read's (single-user rotation); the password follows the secret.
    const { username } = await secret();
    return { user: username, password: async () => (await secret()).password };
  };
}

interface DatabaseSecret {
  readonly username: string;
  readonly password: string;
}

const RDS_SHAPE = "JSON with username and password (RDS's shape)";

async function readSecret(secretArn: string): Promise<DatabaseSecret> {
  const { username, password } = secretObject(secretArn, await readSecretText(secretArn), RDS_SHAPE);
  if (typeof username !== 'string' || typeof password !== 'string') {
    throw new ConfigError([`the secret ${secretArn} has no string username and password (RDS's shape)`]);
  }
  return { username, password };
}
