/**
 * Who a new connection logs in as (docs/redis.md#authentication): nobody (`none`); the IAM-enabled user,
 * with a token signed for that connection (`iam`: valid 15 minutes, so never kept for a later one); or the
 * user and password of a Secrets Manager secret (`secret`: read at the first connection and again for a
 * new one once 5 minutes old, so a rotated password is picked up, as the Postgres store reads its secret).
 * Each kind loads only what it uses: `none` evaluates neither the signer's credentials nor Secrets Manager.
 */
import { ConfigError } from '../core/errors.js';
import {
  readSecretText,
  refreshingSecret,
  type SecretText,
  secretObject,
} from '../core/secrets-manager-secret.js';
import { cachedCredentials, type SigningCredentials } from '../core/sigv4-presign.js';
import type { RedisSettings } from './redis-settings.js';

/** AUTH's arguments: no user is the `default` user; neither is no AUTH at all. */
export interface RedisLogin {
  readonly username?: string;
  readonly password?: string;
}

/** Where a login comes from; the tests give their own. */
export interface LoginSources {
  /** @default the Lambda credential chain (lambdas/core/lambda-credential-provider.ts) */
  readonly credentials?: () => Promise<SigningCredentials>;
  /** @default GetSecretValue (lambdas/core/secrets-manager-secret.ts) */
  readonly secretText?: SecretText;
  /** Where AWS_REGION is read. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** @default the system clock */
  readonly now?: () => Date;
}

const SECRET_SHAPE = 'JSON with a string password (and username, for a user other than default)';

/** The login for each new connection, as the settings say; a missing region is refused at once. */
export function redisLogin(settings: RedisSettings, sources: LoginSources = {}): () => Promise<RedisLogin> {
  const now = sources.now ?? (() => new Date());
  switch (settings.auth) {
    case 'none':
      return async () => ({});
    case 'iam': {
      const region = (sources.env ?? process.env).AWS_REGION ?? '';
      if (region === '') {
        throw new ConfigError([
          "AWS_REGION is not set: the cache's IAM token is signed for its region (Lambda sets it)",
        ]);
      }
      const credentials = cachedCredentials(sources.credentials ?? lambdaCredentials, () => now().getTime());
      return async () => {
        const { cacheIamToken } = await import('./cache-iam-token.js');
        return {
          username: settings.user,
          password: await cacheIamToken({
            cacheName: settings.cacheName,
            cacheKind: settings.cacheKind,
            user: settings.user,
            region,
            credentials,
            now,
          }),
        };
      };
    }
    case 'secret': {
      const read = sources.secretText ?? readSecretText;
      return refreshingSecret(
        async () => secretLogin(settings.secretArn, await read(settings.secretArn)),
        () => now().getTime(),
      );
    }
  }
}

/** The Lambda credential chain, loaded by the first token signed. */
async function lambdaCredentials(): Promise<SigningCredentials> {
  const { defaultProvider } = await import('../core/lambda-credential-provider.js');
  return defaultProvider()();
}

function secretLogin(secretArn: string, text: string): RedisLogin {
  const { username, password } = secretObject(secretArn, text, SECRET_SHAPE);
  if (typeof password !== 'string' || (username !== undefined && typeof username !== 'string')) {
    throw new ConfigError([`the secret ${secretArn} is not ${SECRET_SHAPE}`]);
  }
  return username === undefined ? { password } : { username, password };
}
