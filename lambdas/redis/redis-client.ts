/**
 * A client for the REDIS_* settings (redis-settings.ts), made the way the consumer's is: a URL (a server
 * here, one node), or a host with TLS whose certificate is checked against the host name, one node or a
 * cluster. `options` are the caller's own (timeouts, retries): the operator tool gives up at once where
 * the consumer reconnects.
 */
import { isIP } from 'node:net';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
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
