/**
 * Faults at the Redis client's boundary, the Redis counterpart of fault-injection.ts: the deployed
 * connection (lambdas/redis/redis-connection.ts) of each execution environment makes its ioredis clients
 * as redisInbox() does, each wrapped here, so its commands meet the current attempt's faults (attempt.ts)
 * before and after the real command to a real redis-server, and every write (claim, complete, release,
 * quarantine) that reached the server goes into the journal the invariants read. A lost connection is a
 * real one: the client's socket is destroyed before or after the command is written, the client ends (it
 * never reconnects by itself), and the connection makes another for the next command.
 *
 * A server restart is real too (redis-server-restarts.ts): the command goes out and the server is killed
 * at once, so it may have run or not, and its answer may come back or not. The journal records what the
 * server did: read from the answer, or, when the command failed on the client, from the row itself once
 * the server answers again.
 */
import type { Redis } from 'ioredis';
import type { ManagedClient } from '../../lambdas/redis/redis-connection.js';
import type { StoredRow } from '../../lambdas/redis/redis-inbox-store.js';
import {
  CLAIM_SCRIPT,
  COMPLETE_SCRIPT,
  QUARANTINE_SCRIPT,
  RELEASE_SCRIPT,
} from '../../lambdas/redis/redis-scripts.js';
import { type Attempt, AttemptCrashedError, currentAttempt } from './attempt.js';
import type { Journal, StoreRequest } from './journal.js';
import type { RedisFaultKind, StoreFaultPlan } from './schedule.js';
import type { RedisSoakTarget } from './schedule-result.js';
import type { StoreMutation } from './soak-store.js';

export interface RedisFaultOptions {
  readonly journal: Journal;
  readonly target: RedisSoakTarget;
  readonly mutation: StoreMutation | undefined;
  /** The journal's name of an inbox row (lambdas/core/inbox-rows.ts#dedupRowKey) from its Redis key. */
  readonly pkOf: (rowKey: string) => string | undefined;
}

/** What ioredis answers a command on a connection that is gone, when it does not reconnect by itself. */
const CONNECTION_CLOSED = 'Connection is closed.';

/** `unconditional-claim`: the claim writes its row whatever the key holds (no dedup at all). */
const UNCONDITIONAL_CLAIM = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;

/** A command as the invariants see it, with what it needs to tell whether it landed. */
interface RedisCommand {
  readonly request: StoreRequest;
  /** KEYS[1]: the row (or quarantine entry) it writes. */
  readonly key: string | undefined;
  /** The quarantine entry it writes (ARGV[1]). */
  readonly entry?: string;
}

/** One of an execution environment's clients: its commands meet the current attempt's faults. */
export function faultInjectingClient(client: Redis, options: RedisFaultOptions): ManagedClient {
  return {
    get status() {
      return client.status;
    },
    quit: () => client.quit(),
    disconnect: () => client.disconnect(),
    eval(script, numberOfKeys, ...args) {
      const sent =
        options.mutation === 'unconditional-claim' && script === CLAIM_SCRIPT ? UNCONDITIONAL_CLAIM : script;
      const send = () => client.eval(sent, numberOfKeys, ...args);
      const attempt = currentAttempt.getStore();
      if (!attempt) return send();
      const keys = args.slice(0, numberOfKeys).map(String);
      const argv = args.slice(numberOfKeys).map(String);
      return intercept(attempt, classify(script, keys, argv, options), send, client, options);
    },
    exists(...keys) {
      const send = () => client.exists(...keys);
      const attempt = currentAttempt.getStore();
      if (!attempt) return send();
      const command = { request: request('read', undefined, undefined), key: undefined };
      return intercept(attempt, command, send, client, options);
    },
  };
}

async function intercept<T>(
  attempt: Attempt,
  command: RedisCommand,
  send: () => Promise<T>,
  client: Redis,
  options: RedisFaultOptions,
): Promise<T> {
  const { journal, target } = options;
  // Nothing leaves a process that is gone.
  if (attempt.dead) throw new AttemptCrashedError('execution environment already ended');
  attempt.assertAlive('Redis command');
  const index = attempt.nextStoreRequest();
  const { request } = command;
  const write = request.operation !== 'read';
  const claim = request.operation === 'claim';

  let onTheWire = false;
  const stall = attempt.stallPlan;
  if (write && stall?.point === 'before-write' && attempt.occurrence('stall:before-write') === stall.nth) {
    await attempt.stallHere('before-write');
    // Sent before the deadline, it lands now even if Lambda has ended the environment meanwhile.
    onTheWire = !attempt.alive;
  }

  const fault = onTheWire ? undefined : attempt.plannedFault(index, isRedisFault);
  let claimIndex = -1;
  if (!onTheWire) {
    if (attempt.plan.outage) {
      // Counted once per invocation: the server is unreachable for all of it.
      if (attempt.occurrence('outage') === 0) attempt.fault('redis:outage');
      throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    }
    if (fault === 'not-run') {
      attempt.fault('redis:not-run');
      // Gone before the command is written: it fails unsent, and so does every other the client had in
      // flight (unless the client reconnects and sends them again).
      if (client.status === 'ready') client.stream.destroy();
      throw new Error(CONNECTION_CLOSED);
    }
    if (claim) {
      claimIndex = attempt.occurrence('claim');
      attempt.crashIf('before-claim', claimIndex);
    }
  }

  let answer: T;
  let dropped = false;
  const sentSeq = journal.sending();
  try {
    const answering = send();
    // A ready client has written it to its socket already: cut under it, as a network would; the client
    // fails it as the connection closes, or (reconnecting by itself) sends it again. (A client still
    // connecting holds it back until it is ready: there is no connection to cut yet.)
    if (fault === 'connection-dropped' && client.status === 'ready') {
      attempt.fault('redis:connection-dropped');
      client.stream.destroy();
      dropped = true;
    }
    if (!onTheWire && target.restarts && attempt.plan.serverRestart?.atCommand === index) {
      // The command is on its way: the server dies under it (and under every other command in flight).
      attempt.fault('redis:server-restart');
      target.restarts.begin();
    }
    answer = await answering;
  } catch (error) {
    // Nobody injected this one (another schedule's restart, or this one's), unless the connection was cut.
    if (!dropped) attempt.fault(`observed:${describeError(error)}`);
    if (write) journal.record(attempt, request, await landed(target.harness, command), sentSeq);
    if (onTheWire) attempt.die('timed out; its last request landed late');
    throw error;
  }
  // A client that reconnects by itself sends a command again after a cut connection: the row says what
  // landed, not the second answer.
  const applied = write && (dropped ? await landed(target.harness, command) : appliedBy(command, answer));
  // The attempt's own row: its claim ran, the answer was lost with the connection, and the client sent
  // the claim again on its next one.
  if (claim && applied && answer !== null) attempt.fault('observed:claim-sent-again');
  if (write) journal.record(attempt, request, applied, sentSeq);
  if (onTheWire) attempt.die('timed out; its last request landed late');

  if (applied) {
    if (claim) attempt.crashIf('after-claim', claimIndex);
    if (request.operation === 'complete') {
      attempt.crashIf('after-completion', attempt.occurrence('completion'));
    }
    attempt.crashIf('after-write', attempt.occurrence('write'));
  }
  if (fault === 'answer-lost') {
    attempt.fault('redis:answer-lost');
    // ioredis's own words when the answer does not come within `commandTimeout`.
    throw new Error('Command timed out');
  }
  return answer;
}

function isRedisFault(kind: StoreFaultPlan['kind']): kind is RedisFaultKind {
  return REDIS_FAULTS.has(kind);
}

const REDIS_FAULTS: ReadonlySet<StoreFaultPlan['kind']> = new Set<RedisFaultKind>([
  'answer-lost',
  'not-run',
  'connection-dropped',
]);

/** Which inbox write a script is, told by the store's own scripts (lambdas/redis/redis-scripts.ts). */
function classify(
  script: string,
  keys: readonly string[],
  argv: readonly string[],
  options: RedisFaultOptions,
): RedisCommand {
  const key = keys[0];
  const pk = key === undefined ? undefined : options.pkOf(key);
  switch (script) {
    case CLAIM_SCRIPT:
      return { request: request('claim', pk, storedRow(argv[0])?.lo), key };
    case COMPLETE_SCRIPT:
      return { request: request('complete', pk, argv[0]), key };
    case RELEASE_SCRIPT:
      return { request: request('release', pk, argv[0]), key };
    case QUARANTINE_SCRIPT:
      return { request: request('quarantine', undefined, undefined), key, ...entryOf(argv[0]) };
    default:
      return { request: request('other-write', pk, undefined), key };
  }
}

/** Whether the server applied the write, from its answer. */
function appliedBy(command: RedisCommand, answer: unknown): boolean {
  const { operation, token } = command.request;
  switch (operation) {
    case 'claim':
      // false (written) comes back as null; a row found is the answer when nothing was written, unless
      // it is the attempt's own (a client that sends a command again after a lost connection).
      return answer === null || storedRow(answer)?.lo === token;
    case 'complete':
      // 'restored': the row was gone within its window (a failover lost it) and the completion wrote it back.
      return answer === 'completed' || answer === 'restored';
    case 'release':
      return answer === 'released';
    case 'quarantine':
      return answer === 'quarantined';
    default:
      return true;
  }
}

/**
 * Whether a write whose answer never came landed, read from what it writes once the server answers (the
 * harness's client waits out a restart). The client gave up on the command (its connection ended, or the
 * answer came too late), so it sends it no more: the row says what it did.
 */
async function landed(harness: Redis, command: RedisCommand): Promise<boolean> {
  if (command.key === undefined) return false;
  const stored = await harness.get(command.key);
  const { operation, token } = command.request;
  switch (operation) {
    case 'claim':
      return storedRow(stored)?.lo === token;
    case 'complete':
      return storedRow(stored)?.cb === token;
    case 'release':
      // Gone, or no longer this attempt's: its hold was let go (or taken over, which a release cannot undo).
      return storedRow(stored)?.lo !== token;
    case 'quarantine':
      return stored !== null && stored === command.entry;
    default:
      return false;
  }
}

function storedRow(value: unknown): StoredRow | undefined {
  return typeof value === 'string' ? (JSON.parse(value) as StoredRow) : undefined;
}

function entryOf(entry: string | undefined): { entry?: string } {
  return entry === undefined ? {} : { entry };
}

function request(
  operation: StoreRequest['operation'],
  pk: string | undefined,
  token: string | undefined,
): StoreRequest {
  return { operation, transaction: false, pk, pks: pk === undefined ? [] : [pk], token };
}

/** An error's kind, for the count of errors nobody injected. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.name === 'Error' ? error.message : error.name;
}
