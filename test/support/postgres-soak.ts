/**
 * A Postgres target for the soak's property tests (test/property/postgres-*.test.ts): the connections to a
 * server of test/support/postgres.ts and the run's schemas (local/soak/postgres-soak-setup.ts), made in a
 * block's beforeAll and dropped in its afterAll.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { type PostgresConnections, postgresConnections } from '../../local/soak/postgres-connections.js';
import { dropPostgresSoak, preparePostgresSoak } from '../../local/soak/postgres-soak-setup.js';
import type { PostgresSoakTarget } from '../../local/soak/schedule-result.js';
import type { PostgresTarget } from './postgres.js';

export interface PostgresSoakHandle {
  /** From the block's beforeAll on. */
  target(): PostgresSoakTarget;
  connections(): PostgresConnections;
  /** A lower-case id for names this block makes. */
  readonly runId: string;
}

export function postgresSoakTarget(server: PostgresTarget): PostgresSoakHandle {
  const runId = randomBytes(4).toString('hex');
  let connections: PostgresConnections | undefined;
  let target: PostgresSoakTarget | undefined;
  beforeAll(async () => {
    connections = postgresConnections(server.url(), server.kind);
    target = await preparePostgresSoak(connections, runId);
  });
  afterAll(async () => {
    if (target) await dropPostgresSoak(target).catch(() => undefined);
    await connections?.end();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the soak's target is made in the block's beforeAll");
    return value;
  };
  return { target: () => ready(target), connections: () => ready(connections), runId };
}
