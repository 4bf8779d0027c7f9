/**
 * The Redis store's connection (lambdas/redis/redis-connection.ts) with fake clients and a hand-moved
 * clock: one client per login while it lasts, a new login (a new IAM token) for the client that replaces
 * an ended one, a cluster client replaced once its token could be spent, and a login that fails only
 * failing the command it was for.
 */
import { describe, expect, it } from 'vitest';
import { connectionOptions, IAM_CLUSTER_CLIENT_MAX_AGE_MS } from '../../../lambdas/redis/redis-client.js';
import { type ManagedClient, RedisConnection } from '../../../lambdas/redis/redis-connection.js';
import { type RedisLogin, redisLogin } from '../../../lambdas/redis/redis-login.js';
import type { RedisSettings } from '../../../lambdas/redis/redis-settings.js';
import { ManualClock } from '../../support/clocks.js';

class FakeClient implements ManagedClient {
  status = 'wait';
  readonly commands: string[] = [];
  quits = 0;
  constructor(readonly login: RedisLogin) {}
  async eval(script: string): Promise<unknown> {
    this.status = 'ready';
    this.commands.push(script);
    return null;
  }
  async exists(): Promise<number> {
    this.status = 'ready';
    return 0;
  }
  async quit(): Promise<unknown> {
    this.quits += 1;
    this.status = 'end';
    return 'OK';
  }
  disconnect(): void {
    this.status = 'end';
  }
}

const IAM_SETTINGS: RedisSettings = {
  url: '',
  host: 'payments-cache-abc123.serverless.euw1.cache.amazonaws.com',
  port: 6379,
  tls: 'on',
  cluster: 'off',
  auth: 'iam',
  user: 'payments-consumer',
  cacheName: 'payments-cache',
  cacheKind: 'serverless',
  secretArn: '',
};

function iamConnection(clock: ManualClock, maxClientAgeMs?: number) {
  const clients: FakeClient[] = [];
  const connection = new RedisConnection({
    clientFor: (login) => {
      const client = new FakeClient(login);
      clients.push(client);
      return client;
    },
    login: redisLogin(IAM_SETTINGS, {
      credentials: async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
      env: { AWS_REGION: 'eu-west-1' },
      now: () => new Date(clock.nowMs()),
    }),
    nowMs: () => clock.nowMs(),
    ...(maxClientAgeMs === undefined ? {} : { maxClientAgeMs }),
  });
  return { connection, clients };
}

const signedAt = (login: RedisLogin): string | null =>
  new URL(`http://${login.password}`).searchParams.get('X-Amz-Date');

describe('RedisConnection', () => {
  it('keeps one client, and its token, while the connection lasts', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 4, 5, 6, 7));
    const { connection, clients } = iamConnection(clock);

    await connection.eval('claim', 1, 'k1');
    clock.advance(20 * 60_000);
    await connection.exists('k2');

    expect(clients).toHaveLength(1);
    expect(clients[0]?.login.username).toBe('payments-consumer');
    expect(signedAt(clients[0]?.login ?? {})).toBe('20260304T050607Z');
  });

  it('reconnects with a token signed then, 15 minutes after the one the ended connection used', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 4, 5, 6, 7));
    const { connection, clients } = iamConnection(clock);
    await connection.eval('claim', 1, 'k1');

    clock.advance(15 * 60_000);
    clients[0]?.disconnect();
    await connection.eval('complete', 1, 'k1');

    expect(clients).toHaveLength(2);
    expect(clients[0]?.commands).toEqual(['claim']);
    expect(clients[1]?.commands).toEqual(['complete']);
    expect(signedAt(clients[1]?.login ?? {})).toBe('20260304T052107Z');
    expect(clients[1]?.login.password).not.toBe(clients[0]?.login.password);
  });

  it('makes one client for the commands of a batch that wait for it together', async () => {
    const clock = new ManualClock();
    const { connection, clients } = iamConnection(clock);

    await Promise.all(Array.from({ length: 8 }, (_, i) => connection.eval('claim', 1, `k${i}`)));

    expect(clients).toHaveLength(1);
    expect(clients[0]?.commands).toHaveLength(8);
  });

  it('replaces a client older than its age limit, quitting the old one after', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 4, 5, 6, 7));
    const { connection, clients } = iamConnection(clock, IAM_CLUSTER_CLIENT_MAX_AGE_MS);
    await connection.eval('claim', 1, 'k1');

    clock.advance(IAM_CLUSTER_CLIENT_MAX_AGE_MS);
    await connection.eval('claim', 1, 'k2');
    expect(clients).toHaveLength(1);

    clock.advance(1);
    await connection.eval('claim', 1, 'k3');
    expect(clients).toHaveLength(2);
    expect(clients[0]?.quits).toBe(1);
    expect(clients[1]?.commands).toEqual(['claim']);
    expect(signedAt(clients[1]?.login ?? {})).toBe('20260304T051607Z');
  });

  it('fails only the command whose login could not be made; the next one logs in', async () => {
    let attempts = 0;
    const connection = new RedisConnection({
      clientFor: (login) => new FakeClient(login),
      login: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('ThrottlingException');
        return { password: 'p' };
      },
    });

    await expect(connection.eval('claim', 1, 'k1')).rejects.toThrow('ThrottlingException');
    await expect(connection.eval('claim', 1, 'k1')).resolves.toBeNull();
  });
});

describe('RedisConnection after a refused login', () => {
  it('leaves the client that failed before it was ready, and makes a new one for the next command', async () => {
    const clients: FakeClient[] = [];
    const closed: (string | undefined)[] = [];
    const connection = new RedisConnection({
      clientFor: (login) => {
        const client = new FakeClient(login);
        if (clients.length === 0) {
          // As ioredis does: the login refused during the handshake; closing takes until its socket closes.
          client.eval = async () => {
            client.status = 'connect';
            throw new Error('WRONGPASS invalid username-password pair or user is disabled.');
          };
          client.disconnect = () => void closed.push(client.login.password);
        }
        clients.push(client);
        return client;
      },
      login: async () => ({ username: 'payments', password: `p${clients.length}` }),
    });

    await expect(connection.eval('claim', 1, 'k1')).rejects.toThrow('WRONGPASS');
    await connection.eval('claim', 1, 'k1');

    expect(closed).toEqual(['p0']);
    expect(clients.map((client) => [client.login.password, client.status])).toEqual([
      ['p0', 'connect'],
      ['p1', 'ready'],
    ]);
  });

  it('leaves a ready client a node refused the login of (a cluster’s), but keeps one a command timed out on', async () => {
    const failures = [new Error('Command timed out'), new Error('NOAUTH Authentication required.')];
    const clients: FakeClient[] = [];
    const connection = new RedisConnection({
      clientFor: (login) => {
        const client = new FakeClient(login);
        client.status = 'ready';
        client.eval = async () => {
          const failure = failures.shift();
          if (failure) throw failure;
          return 'ok';
        };
        clients.push(client);
        return client;
      },
      login: async () => ({ password: `p${clients.length}` }),
    });

    await expect(connection.eval('claim', 1, 'k1')).rejects.toThrow('timed out');
    await expect(connection.eval('claim', 1, 'k1')).rejects.toThrow('NOAUTH');
    await expect(connection.eval('claim', 1, 'k1')).resolves.toBe('ok');

    expect(clients.map((client) => [client.login.password, client.status])).toEqual([
      ['p0', 'end'],
      ['p1', 'ready'],
    ]);
  });
});

describe('connectionOptions', () => {
  it('limits the age of a cluster client with IAM only: a single node opens no connection by itself', () => {
    const aged = (settings: Partial<RedisSettings>) =>
      connectionOptions({ ...IAM_SETTINGS, ...settings }, { env: { AWS_REGION: 'eu-west-1' } })
        .maxClientAgeMs;

    expect(aged({ cluster: 'on' })).toBe(10 * 60_000);
    expect(aged({ cluster: 'off' })).toBeUndefined();
    expect(aged({ cluster: 'on', auth: 'secret', secretArn: 'arn:secret' })).toBeUndefined();
  });
});
