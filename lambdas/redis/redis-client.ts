/**
 * Clients for the REDIS_* settings (redis-settings.ts). `redisClient`: made the way the consumer's is, a
 * URL (a server here, one node), or a host with TLS whose certificate is checked against the host name,
 * one node or a cluster, with the caller's own options (the operator tool gives up at once). The
 * consumer's `redisConnection`: such clients with a command timeout and no reconnection of their own,
 * each logging in as redis-login.ts says, replaced by redis-connection.ts when their login is spent.
 */
import { isIP } from 'node:net';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { IAM_TOKEN_LIFETIME_SECONDS } from './cache-iam-token.js';
import { type ManagedClient, RedisConnection, type RedisConnectionOptions } from './redis-connection.js';
import { type LoginSources, type RedisLogin, redisLogin } from './redis-login.js';
import type { RedisSettings } from './redis-settings.js';

export function redisClient(settings: RedisSettings, options: RedisOptions): Redis | Cluster {
  if (settings.url !== '') return new Redis(settings.url, options);
  // A name to check the certificate against; an address is checked as itself (a name is no address: RFC 6066).
  const servername = isIP(settings.host) === 0 ? { servername: settings.host } : {};
  const tls = settings.tls === 'on' ? { tls: servername } : {};
  if (settings.cluster === 'on') {
    return new Cluster([{ host: settings.host, port: settings.port }], {
      // ElastiCache's cluster endpoints answer with node addresses that need the same TLS name.
      dnsLookup: (address, callback) => callback(null, address),
      redisOptions: { ...options, ...tls },
      // A cluster gives up on a command it cannot route as a node does.
      ...(options.retryStrategy === undefined ? {} : { clusterRetryStrategy: options.retryStrategy }),
    });
  }
  return new Redis({ host: settings.host, port: settings.port, ...options, ...tls });
}

/**
 * A command that cannot be sent within this is failed (the record is reported and retried), rather than
 * queued for ever while the server is away.
 */
const COMMAND_TIMEOUT_MS = 5_000;

/**
 * A cluster client signed in with an IAM token is replaced once it is this old: it opens node connections
 * by itself (after a failover, a resharding), and each must present a token younger than 15 minutes; the
 * 5 minutes left cover a connection opened late in a command.
 */
export const IAM_CLUSTER_CLIENT_MAX_AGE_MS = (IAM_TOKEN_LIFETIME_SECONDS - 5 * 60) * 1_000;

/** The consumer's connection: a client per login, made at the first command (docs/redis.md#authentication). */
export function redisConnection(settings: RedisSettings, sources: LoginSources = {}): RedisConnection {
  return new RedisConnection(connectionOptions(settings, sources));
}

/** The connection's clients, logins and clients' age limit for these settings. */
export function connectionOptions(
  settings: RedisSettings,
  sources: LoginSources = {},
): RedisConnectionOptions {
  const now = sources.now ?? (() => new Date());
  return {
    clientFor: (login) => consumerClient(settings, login),
    login: redisLogin(settings, sources),
    nowMs: () => now().getTime(),
    ...(settings.cluster === 'on' && settings.auth === 'iam'
      ? { maxClientAgeMs: IAM_CLUSTER_CLIENT_MAX_AGE_MS }
      : {}),
  };
}

/** A client logging in as `login`, connecting at its first command, never reconnecting by itself. */
function consumerClient(settings: RedisSettings, login: RedisLogin): ManagedClient {
  const client = redisClient(settings, {
    lazyConnect: true,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: null,
    ...login,
  });
  // Each failure reaches the command it fails; without a listener ioredis would also print it.
  client.on('error', () => undefined);
  return client;
}
