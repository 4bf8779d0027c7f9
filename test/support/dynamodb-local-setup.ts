/**
 * globalSetup of the test projects that talk to DynamoDB Local (vitest.config.ts): one JVM for the whole run,
 * however many of those projects run.
 *
 * Vitest runs each project's globalSetup in the main process, once per run, and only for projects with a test
 * file queued; teardowns run when the run ends, in reverse order. Each project loads this file through its own
 * module runner, so module state is not shared between projects: the server is kept on globalThis instead,
 * started by the first project that asks, stopped when the last one tears down.
 */
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb-local/server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}

interface SharedServer {
  readonly server: Promise<DynamoDbLocal>;
  users: number;
}

const SHARED = Symbol.for('msk-inbox.test.dynamodb-local');

type Holder = typeof globalThis & { [SHARED]?: SharedServer };

/** Each file creates its own uniquely named tables (test/support/dynamodb.ts). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const holder = globalThis as Holder;
  let shared = holder[SHARED];
  if (shared === undefined) {
    shared = { server: startDynamoDbLocal(), users: 0 };
    holder[SHARED] = shared;
  }
  shared.users += 1;
  const acquired = shared;
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    acquired.users -= 1;
    if (acquired.users > 0) return;
    if (holder[SHARED] === acquired) delete holder[SHARED];
    const server = await acquired.server.catch(() => undefined);
    await server?.stop();
  };
  try {
    project.provide('dynamoDbEndpoint', (await acquired.server).endpoint);
  } catch (error) {
    await release();
    throw error;
  }
  return release;
}
