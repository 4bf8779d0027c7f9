/**
 * Where a Redis inbox is, for the operator's commands (docs/redis.md#the-operator-on-redis): the settings
 * `--redis URL` or the REDIS_* variables gave (operator-target.ts, redisOf), connected as the consumer
 * connects (lambdas/redis/redis-client.ts) but giving up at the first failure, which a person's mistake
 * is: nothing answering, a refused login, a cluster reached as one node, each one line with its fix.
 */
import type { Cluster, Redis } from 'ioredis';
import { redisClient } from '../lambdas/redis/redis-client.js';
import { REDIS_SETTINGS, type RedisSettings } from '../lambdas/redis/redis-settings.js';
import { UserError } from './cli/user-error.js';
import { redacted } from './redacted-url.js';
import type { NamedRedis } from './redis-flags.js';

/** A connection not made, or a command not answered, within this is one line, not a wait. */
const TIMEOUT_MS = 10_000;

export interface RedisConnection {
  readonly client: Redis | Cluster;
  /** Where it is, without a password: `cache.example:6379`. */
  readonly where: string;
  /** The REDIS_* variables a consumer run here (`--handler`) reaches the same server with. */
  readonly handlerVariables: Readonly<Record<string, string>>;
  /** The variables that say which server, and what named each here: a function's must match them. */
  readonly namedBy: Readonly<Record<string, string>>;
  advice(error: unknown): UserError | undefined;
}

export function redisConnection(named: NamedRedis): RedisConnection {
  const { settings } = named;
  const client = redisClient(settings, {
    lazyConnect: true,
    connectTimeout: TIMEOUT_MS,
    commandTimeout: TIMEOUT_MS,
    // A command-line tool: a server that is not there is the answer, not something to wait out.
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    // No INFO before the first command: an operator's user need not be allowed it, and a server still
    // loading its data answers the command itself with LOADING.
    enableReadyCheck: false,
  });
  // A failed connection is told only as an event; the command then fails with "Connection is closed".
  let connectionError: unknown;
  client.on('error', (error: unknown) => {
    connectionError = error;
  });
  const where = whereOf(settings);
  return {
    client,
    where,
    handlerVariables: variablesOf(settings),
    namedBy: namedByOf(named),
    advice: (error) => redisAdvice(where, named.namedBy, connectionError ?? error, error),
  };
}

/** The failures a person can fix, as one line naming the fix; else undefined (a bug, a server fault). */
function redisAdvice(
  where: string,
  namedBy: NamedRedis['namedBy'],
  cause: unknown,
  error: unknown,
): UserError | undefined {
  const message = cause instanceof Error ? cause.message : String(cause);
  const code = (cause as { code?: unknown }).code;
  const options = { cause: error };
  const check = namedBy === 'flag' ? '--redis' : `${REDIS_SETTINGS.host.env} and ${REDIS_SETTINGS.port.env}`;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') {
    return new UserError(
      `nothing answers at ${where} (${String(code)}): is the server running? check ${check}`,
      options,
    );
  }
  if (code === 'ETIMEDOUT' || /Command timed out/.test(message)) {
    return new UserError(
      `no answer from ${where} within ${TIMEOUT_MS / 1000} s: check ${check}, TLS (${REDIS_SETTINGS.tls.env}, rediss://) and that this machine may reach it (ElastiCache answers inside its VPC only)`,
      options,
    );
  }
  if (/^(WRONGPASS|NOAUTH)/.test(message)) {
    return new UserError(
      `the server at ${where} refused the login (${message}): check the user and password`,
      options,
    );
  }
  if (/^LOADING/.test(message)) {
    return new UserError(
      `the server at ${where} is loading its data: run the command again in a moment`,
      options,
    );
  }
  if (/^NOPERM/.test(message)) {
    return new UserError(
      `not allowed: ${message}: grant the user the commands and keys in docs/redis.md#the-operator-on-redis`,
      options,
    );
  }
  if (/^MOVED/.test(message)) {
    return new UserError(
      `${where} is a cluster (${message}): set ${REDIS_SETTINGS.cluster.env}=on with ${REDIS_SETTINGS.host.env} and ${REDIS_SETTINGS.port.env}, as the function has them`,
      options,
    );
  }
  if (/certificate|SSL|TLS|EPROTO/i.test(message)) {
    return new UserError(
      `TLS to ${where} failed (${message}): check ${REDIS_SETTINGS.tls.env}, or rediss:// in --redis`,
      options,
    );
  }
  return undefined;
}

function whereOf(settings: RedisSettings): string {
  if (settings.url === '') {
    return `${settings.host}:${settings.port}${settings.cluster === 'on' ? ' (cluster)' : ''}`;
  }
  try {
    const url = new URL(settings.url);
    return `${url.hostname}:${url.port || REDIS_SETTINGS.port.default}`;
  } catch {
    return redacted(settings.url);
  }
}

/** Every setting as its variable, so a consumer run here reads what the tool connected with. */
function variablesOf(settings: RedisSettings): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [name, definition] of Object.entries(REDIS_SETTINGS)) {
    const value = settings[name as keyof RedisSettings];
    if (value !== '') variables[definition.env] = String(value);
  }
  return variables;
}

function namedByOf(named: NamedRedis): Record<string, string> {
  const { url, host, port } = REDIS_SETTINGS;
  if (named.namedBy === 'flag') return { [url.env]: '--redis' };
  if (named.settings.url !== '') return { [url.env]: `$${url.env}` };
  return { [host.env]: `$${host.env}`, [port.env]: `$${port.env}` };
}
