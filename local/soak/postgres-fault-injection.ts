/**
 * Faults at the `pg` boundary, the Postgres counterpart of fault-injection.ts: the store gets a pool whose
 * connections' `query` is intercepted, so the current attempt (attempt.ts) meets its schedule's faults
 * between the store and a real server, and every write that reached the server goes into the journal the
 * invariants read. The server produces what it can: a statement timeout is a real statement_timeout
 * cancelling a pg_sleep (PGlite ignores statement_timeout: there the server raises 57014), serialization
 * failures and deadlocks are raised by the server, a refused COMMIT is a deferred constraint trigger
 * (postgres-soak-setup.ts), and a process that dies drops its connections, so the server rolls back what
 * it had open. Only a lost answer and an unreachable server are the client's doing.
 */
import type { Socket } from 'node:net';
import type { PoolClient, QueryResult } from 'pg';
import type { ConnectionSource } from '../../lambdas/postgres/connection.js';
import { type Attempt, AttemptCrashedError, currentAttempt } from './attempt.js';
import type { Journal, StoreRequest } from './journal.js';
import { failOnServer, refuseNextCommit } from './postgres-server-faults.js';
import {
  AUTOCOMMIT_WRITES,
  classifyStatement,
  type Statement,
  TRANSACTION_CONTROL,
  unconditionalTake,
} from './postgres-statements.js';
import type { PostgresFaultKind, StoreFaultPlan, TransactionStage } from './schedule.js';
import type { PostgresSoakTarget } from './schedule-result.js';
import type { StoreMutation } from './soak-store.js';

export interface PostgresFaultOptions {
  readonly journal: Journal;
  readonly target: PostgresSoakTarget;
  readonly mutation: StoreMutation | undefined;
}

/** Clients with the no-op error listener: a socket destroyed while checked out must not crash the process. */
const listened = new WeakSet<PoolClient>();

/** A pool for one execution environment whose connections meet the current attempt's faults. */
export function faultInjectingPool(
  source: ConnectionSource,
  options: PostgresFaultOptions,
): ConnectionSource {
  return {
    async connect() {
      const attempt = currentAttempt.getStore();
      if (!attempt) return source.connect();
      if (attempt.dead) throw new AttemptCrashedError('execution environment already ended');
      attempt.assertAlive('connect');
      let late = false;
      const stall = attempt.stallPlan;
      if (stall?.point === 'before-write' && attempt.occurrence('stall:before-write') === stall.nth) {
        // The store's nth operation is held up; begun before the deadline, it runs to its end even if
        // Lambda has ended the environment meanwhile, and lands late.
        await attempt.stallHere('before-write');
        late = !attempt.alive;
      }
      if (!late && attempt.plan.outage) {
        // Counted once per invocation: the server is unreachable for all of it.
        if (attempt.occurrence('outage') === 0) attempt.fault('pg:outage');
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      }
      const client = await source.connect();
      if (!listened.has(client)) {
        listened.add(client);
        client.on('error', () => undefined);
      }
      return new InterceptedConnection(client, attempt, late, options).client;
    },
    end: () => source.end(),
  };
}

/** What the connection's open transaction has done so far. */
interface OpenTransaction {
  readonly claimIndex: number;
  readonly index: number;
  readonly sentSeq: number;
  /** Inbox rows taken, with the savepoint they were taken after. */
  readonly takes: { pk: string; savepoints: number }[];
  readonly savepoints: string[];
}

class InterceptedConnection {
  readonly client: PoolClient;
  readonly #real: PoolClient;
  readonly #attempt: Attempt;
  readonly #late: boolean;
  readonly #options: PostgresFaultOptions;
  readonly #forgetDeath: () => void;
  #transaction: OpenTransaction | undefined;
  #dropped = false;

  constructor(real: PoolClient, attempt: Attempt, late: boolean, options: PostgresFaultOptions) {
    this.#real = real;
    this.#attempt = attempt;
    this.#late = late;
    this.#options = options;
    // A process that dies drops its connections: the server rolls back what they had open. A late
    // operation is already on its way.
    this.#forgetDeath = late ? () => undefined : attempt.onDeath(() => this.#drop());
    const query = (text: string, values?: unknown[]) => this.#query(text, values);
    const release = (error?: Error | boolean) => this.#release(error);
    this.client = new Proxy(real, {
      get(target, property) {
        if (property === 'query') return query;
        if (property === 'release') return release;
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  #drop(): void {
    this.#dropped = true;
    (this.#real as unknown as { connection: { stream: Socket } }).connection.stream.destroy();
  }

  #release(error?: Error | boolean): void {
    this.#forgetDeath();
    if (this.#late && !this.#attempt.dead) {
      try {
        this.#attempt.die('timed out; its last operation landed late');
      } catch {}
    }
    this.#real.release(this.#dropped ? new Error('connection dropped') : error);
  }

  async #query(text: string, values?: unknown[]): Promise<QueryResult> {
    const attempt = this.#attempt;
    const { target, journal, mutation } = this.#options;
    if (!this.#late) {
      if (attempt.dead) throw new AttemptCrashedError('execution environment already ended');
      attempt.assertAlive('statement');
    }
    const statement = classifyStatement(text, values, target.inboxSchema);
    const sent =
      statement.kind === 'take' && mutation === 'unconditional-claim' ? unconditionalTake(text) : text;
    const index = attempt.nextStoreRequest();
    const fault = this.#late ? undefined : armedFault(attempt, index, this.#applies(statement));
    const claimIndex = this.#beforeSending(statement);
    const sentSeq = journal.sending();

    let result: QueryResult;
    try {
      if (fault !== undefined) attempt.fault(`pg:${fault}`);
      result = await this.#send(fault, sent, values);
    } catch (error) {
      this.#observe(error, fault);
      // No fault was injected, yet the connection is gone: the environment died with the statement in
      // flight, and the server may have run it (an autocommit write, a COMMIT) before it saw the socket close.
      this.#journalFailure(statement, sentSeq, fault === undefined && this.#dropped);
      throw error;
    }
    const applied = this.#journalSuccess(statement, result, sentSeq);
    try {
      if (!this.#late) this.#afterAnswer(statement, applied, claimIndex);
    } finally {
      if (statement.kind === 'commit' || statement.kind === 'rollback') this.#transaction = undefined;
    }
    if (fault === 'answer-lost') {
      this.#drop();
      throw new Error('Connection terminated unexpectedly');
    }
    return result;
  }

  /** Which planned faults a statement can meet. */
  #applies(statement: Statement) {
    const inTransaction = this.#transaction !== undefined;
    return (kind: StoreFaultPlan['kind']): kind is PostgresFaultKind => {
      switch (kind) {
        case 'connection-dropped':
          return true;
        case 'statement-timeout':
        case 'serialization-failure':
        case 'deadlock':
          return !TRANSACTION_CONTROL.has(statement.kind);
        case 'answer-lost':
          return statement.kind === 'commit' || (!inTransaction && AUTOCOMMIT_WRITES.has(statement.kind));
        case 'commit-refused':
          return statement.kind === 'commit';
        default:
          return false;
      }
    };
  }

  /** Transaction bookkeeping and the crash points before a statement leaves; the claim's index, if any. */
  #beforeSending(statement: Statement): number {
    const attempt = this.#attempt;
    if (statement.kind === 'begin') {
      const claimIndex = this.#late ? -1 : attempt.occurrence('claim');
      if (!this.#late) attempt.crashIf('before-claim', claimIndex);
      this.#transaction = {
        claimIndex,
        index: this.#late ? -1 : attempt.occurrence('transaction'),
        sentSeq: this.#options.journal.sending(),
        takes: [],
        savepoints: [],
      };
      return claimIndex;
    }
    if (this.#late) return -1;
    if (statement.kind === 'take' && this.#transaction === undefined) {
      const claimIndex = attempt.occurrence('claim');
      attempt.crashIf('before-claim', claimIndex);
      return claimIndex;
    }
    if (statement.kind === 'commit') this.#crashInside('before-commit');
    return -1;
  }

  /** Dies at `stage` of the transaction the plan names, rolling it back with the dropped connection. */
  #crashInside(stage: TransactionStage | 'after-commit'): void {
    const crash = this.#attempt.plan.crash;
    const transaction = this.#transaction;
    if (crash?.point !== 'inside-transaction' || crash.nth !== transaction?.index) return;
    if ((stage === 'after-commit') !== crash.applied) return;
    if (stage !== 'after-commit' && crash.stage !== stage) return;
    this.#attempt.fault('crash:inside-transaction');
    this.#attempt.fault(`stage:${stage}`);
    if (transaction.savepoints.length > 0) this.#attempt.fault('crash:inside-group-commit');
    this.#attempt.die(`inside-transaction (${stage})`);
  }

  async #send(fault: PostgresFaultKind | undefined, text: string, values: unknown[] | undefined) {
    const real = this.#real;
    switch (fault) {
      case 'connection-dropped':
        // The driver fails the statement itself, as for any socket that died under it.
        this.#drop();
        return real.query(text, values);
      case 'statement-timeout':
      case 'serialization-failure':
      case 'deadlock':
        return failOnServer(real, fault, {
          kind: this.#options.target.connections.kind,
          inTransaction: this.#transaction !== undefined,
        });
      case 'commit-refused':
        await refuseNextCommit(real, this.#options.target.faultSchema);
        return real.query(text, values);
      default:
        return real.query(text, values);
    }
  }

  /** Counts server errors nobody injected (deadlocks between overlapping invocations, lock timeouts). */
  #observe(error: unknown, fault: PostgresFaultKind | undefined): void {
    const code = (error as { code?: unknown } | null)?.code;
    if (fault === undefined && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
      this.#attempt.fault(`observed:SQLSTATE ${code}`);
    }
  }

  #journalFailure(statement: Statement, sentSeq: number, inFlightAtDeath: boolean): void {
    const transaction = this.#transaction;
    if ((statement.kind === 'commit' || statement.kind === 'rollback') && transaction) {
      // Refused, or no answer: the server rolled it back, or it will when it sees the connection gone,
      // unless a COMMIT reached it before the connection died.
      this.#transaction = undefined;
      const uncertain = statement.kind === 'commit' && inFlightAtDeath;
      this.#record(commitRequest(transaction), false, transaction.sentSeq, uncertain);
      return;
    }
    const request = this.#autocommitRequest(statement);
    if (request) this.#record(request, false, sentSeq, inFlightAtDeath);
  }

  /** Journals what the statement did; whether it was an applied write. */
  #journalSuccess(statement: Statement, result: QueryResult, sentSeq: number): boolean {
    const transaction = this.#transaction;
    if (transaction) {
      switch (statement.kind) {
        case 'take':
          if (result.rowCount === 1)
            transaction.takes.push({ pk: statement.pk, savepoints: transaction.savepoints.length });
          return false;
        case 'savepoint':
          transaction.savepoints.push(statement.name);
          return false;
        case 'rollback-to': {
          const depth = transaction.savepoints.lastIndexOf(statement.name);
          transaction.savepoints.length = depth + 1;
          const kept = transaction.takes.filter((take) => take.savepoints <= depth);
          transaction.takes.splice(0, transaction.takes.length, ...kept);
          return false;
        }
        case 'commit':
        case 'rollback': {
          // COMMIT of a transaction the server had aborted answers ROLLBACK: nothing landed.
          const applied = statement.kind === 'commit' && result.command === 'COMMIT';
          this.#record(commitRequest(transaction), applied, transaction.sentSeq);
          return applied;
        }
        default:
          return false;
      }
    }
    const request = this.#autocommitRequest(statement);
    if (!request) return false;
    const applied = (result.rowCount ?? 0) > 0;
    this.#record(request, applied, sentSeq);
    return applied;
  }

  #autocommitRequest(statement: Statement): StoreRequest | undefined {
    if (this.#transaction !== undefined) return undefined;
    switch (statement.kind) {
      case 'take':
        return request('claim', [statement.pk], statement.token);
      case 'complete':
      case 'release':
        return request(statement.kind, [statement.pk], statement.token);
      case 'quarantine':
        return request('quarantine', [statement.pk], undefined);
      case 'expire':
        return request('other-write', [], undefined);
      default:
        return undefined;
    }
  }

  #record(request: StoreRequest, applied: boolean, sentSeq: number, uncertain = false): void {
    this.#options.journal.record(this.#attempt, request, applied, sentSeq, uncertain);
  }

  /** The crash points after an answer, as fault-injection.ts has them for DynamoDB. */
  #afterAnswer(statement: Statement, applied: boolean, claimIndex: number): void {
    const attempt = this.#attempt;
    const transaction = this.#transaction;
    if (transaction !== undefined && statement.kind !== 'commit') {
      if (statement.kind === 'take') this.#crashInside('after-inbox-insert');
      if (statement.kind === 'effect') this.#crashInside('after-effect-sql');
      return;
    }
    if (!applied) return;
    if (statement.kind === 'take') attempt.crashIf('after-claim', claimIndex);
    if (statement.kind === 'commit' && transaction !== undefined) {
      attempt.crashIf('after-claim', transaction.claimIndex);
      this.#crashInside('after-commit');
    }
    if (statement.kind === 'complete') attempt.crashIf('after-completion', attempt.occurrence('completion'));
    attempt.crashIf('after-write', attempt.occurrence('write'));
  }
}

/** Per attempt, how many statements each planned fault (by its place in the plan) has hit. */
const faultHits = new WeakMap<Attempt, number[]>();

/**
 * The planned fault this statement meets. A fault is armed from the attempt's `atCall`th statement on and
 * hits the next `burst` statements it can hit: a COMMIT-only fault waits for the next COMMIT, where the
 * SDK's faults (Attempt.plannedFault) hit exactly the requests they name.
 */
function armedFault(
  attempt: Attempt,
  index: number,
  applies: (kind: StoreFaultPlan['kind']) => kind is PostgresFaultKind,
): PostgresFaultKind | undefined {
  const faults = attempt.plan.storeFaults;
  let hits = faultHits.get(attempt);
  if (!hits) {
    hits = faults.map(() => 0);
    faultHits.set(attempt, hits);
  }
  for (const [position, fault] of faults.entries()) {
    if (index < fault.atCall || (hits[position] ?? 0) >= fault.burst || !applies(fault.kind)) continue;
    hits[position] = (hits[position] ?? 0) + 1;
    return fault.kind;
  }
  return undefined;
}

function request(
  operation: StoreRequest['operation'],
  pks: string[],
  token: string | undefined,
): StoreRequest {
  return { operation, transaction: false, pk: pks[0], pks, token };
}

function commitRequest(transaction: OpenTransaction): StoreRequest {
  const pks = transaction.takes.map((take) => take.pk);
  return { operation: 'commit', transaction: true, pk: pks[0], pks, token: undefined };
}
