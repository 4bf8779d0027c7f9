/**
 * Faults at the SDK boundary: a middleware inside the SDK's retry loop (the deserialize step), so the
 * client's own retries run as in AWS, and a write can reach DynamoDB Local and still fail (a timeout after
 * the write succeeded server-side, or the process dying before it sees the answer). Every write that
 * reached DynamoDB goes into the journal, which the invariants read.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localDynamoDbClient } from '../dynamodb-local/client.js';
import {
  internalServerError,
  throttlingError,
  timeoutError,
  transactionConflictError,
  unreachableError,
} from '../dynamodb-local/sdk-errors.js';
import { type Attempt, AttemptCrashedError, currentAttempt } from './attempt.js';
import type { Journal, StoreRequest } from './journal.js';
import type { SdkFaultKind, StoreFaultPlan } from './schedule.js';
import type { StoreMutation } from './soak-store.js';

/** A client on DynamoDB Local whose requests meet the current attempt's faults. */
export function faultInjectingClient(
  endpoint: string,
  journal: Journal,
  mutation?: StoreMutation,
): DynamoDBClient {
  // maxAttempts as the deployed handler pins it (sample/order-consumer/handler.ts).
  const client = localDynamoDbClient(endpoint, 3);
  if (mutation === 'unconditional-claim') {
    client.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as Record<string, unknown>;
        const items = input.TransactItems as { Put?: Record<string, unknown> }[] | undefined;
        const puts = items ? items.map((action) => action.Put).filter((put) => put !== undefined) : [input];
        for (const put of puts) {
          const status = (put.Item as { status?: unknown } | undefined)?.status;
          if (status !== 'IN_PROGRESS' && status !== 'COMPLETED') continue;
          for (const field of [
            'ConditionExpression',
            'ExpressionAttributeNames',
            'ExpressionAttributeValues',
            'ReturnValuesOnConditionCheckFailure',
          ]) {
            delete put[field];
          }
        }
        return next(args);
      },
      // Before the document client marshalls the input: plain values.
      { step: 'initialize', name: 'soakMutation', priority: 'low' },
    );
  }
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const attempt = currentAttempt.getStore();
      if (!attempt) return next(args);
      const request = classify(String(context.commandName), args.input as Record<string, unknown>);
      return intercept(attempt, request, journal, () => next(args));
    },
    { step: 'deserialize', name: 'soakFaultInjection', priority: 'low' },
  );
  return client;
}

async function intercept<T>(
  attempt: Attempt,
  request: StoreRequest,
  journal: Journal,
  send: () => Promise<T>,
): Promise<T> {
  // Nothing leaves a process that is gone.
  if (attempt.dead) throw new AttemptCrashedError('execution environment already ended');
  attempt.assertAlive('SDK request');
  const index = attempt.nextStoreRequest();
  const write = request.operation !== 'read';
  const claim = request.operation === 'claim' || request.operation === 'commit';

  let onTheWire = false;
  const stall = attempt.stallPlan;
  if (write && stall?.point === 'before-write' && attempt.occurrence('stall:before-write') === stall.nth) {
    await attempt.stallHere('before-write');
    // Sent before the deadline, it lands now even if Lambda has ended the environment meanwhile.
    onTheWire = !attempt.alive;
  }

  const fault = onTheWire ? undefined : attempt.plannedFault(index, sdkFaultFor(request));
  let claimIndex = -1;
  let transactionIndex = -1;
  if (!onTheWire) {
    if (attempt.plan.outage) {
      // Counted once per invocation: DynamoDB is unreachable for all of it.
      if (attempt.occurrence('outage') === 0) attempt.fault('sdk:outage');
      throw unreachableError();
    }
    if (fault && fault !== 'timeout-after-write') {
      attempt.fault(`sdk:${fault}`);
      throw errorFor(fault);
    }
    if (claim) {
      claimIndex = attempt.occurrence('claim');
      attempt.crashIf('before-claim', claimIndex);
    }
    if (request.transaction) {
      transactionIndex = attempt.occurrence('transaction');
      const crash = attempt.plan.crash;
      if (crash?.point === 'inside-transaction' && crash.nth === transactionIndex && !crash.applied) {
        attempt.fault('crash:inside-transaction');
        if (request.pks.length > 1) attempt.fault('crash:inside-group-commit');
        attempt.die('inside-transaction (not applied)');
      }
    }
  }

  let result: T;
  const sentSeq = journal.sending();
  try {
    result = await send();
  } catch (error) {
    if (write) journal.record(attempt, request, false, sentSeq);
    if (onTheWire) attempt.die('timed out; its last request landed late');
    throw error;
  }
  // Inside the deserialize step the answer is still raw HTTP: a failed condition is a 400 the
  // deserializer turns into an exception further out.
  const applied = write && httpStatus(result) < 300;
  if (write) journal.record(attempt, request, applied, sentSeq);
  if (onTheWire) attempt.die('timed out; its last request landed late');
  if (!applied) return result;

  if (claim) attempt.crashIf('after-claim', claimIndex);
  if (transactionIndex >= 0) {
    const crash = attempt.plan.crash;
    if (crash?.point === 'inside-transaction' && crash.nth === transactionIndex && crash.applied) {
      attempt.fault('crash:inside-transaction');
      if (request.pks.length > 1) attempt.fault('crash:inside-group-commit');
      attempt.die('inside-transaction (applied)');
    }
  }
  if (request.operation === 'complete') attempt.crashIf('after-completion', attempt.occurrence('completion'));
  attempt.crashIf('after-write', attempt.occurrence('write'));
  if (fault === 'timeout-after-write') {
    attempt.fault('sdk:timeout-after-write');
    throw timeoutError();
  }
  return result;
}

function httpStatus(result: unknown): number {
  return (result as { response?: { statusCode?: number } } | undefined)?.response?.statusCode ?? 0;
}

/** Which SDK faults a request can meet: a transaction conflict needs a transaction. */
function sdkFaultFor(request: StoreRequest) {
  return (kind: StoreFaultPlan['kind']): kind is SdkFaultKind =>
    SDK_FAULTS.has(kind) && (kind !== 'transaction-conflict' || request.transaction);
}

const SDK_FAULTS: ReadonlySet<StoreFaultPlan['kind']> = new Set<SdkFaultKind>([
  'throttling',
  'server-error',
  'timeout-after-write',
  'transaction-conflict',
]);

/** Reads the marshalled input the way DynamoDB sees it. */
function classify(commandName: string, input: Record<string, unknown>): StoreRequest {
  const s = (value: unknown): string | undefined => (value as { S?: string } | undefined)?.S;
  switch (commandName) {
    case 'TransactWriteItemsCommand': {
      const items = input.TransactItems as { Put?: { Item?: Record<string, unknown> } }[] | undefined;
      const pks = (items ?? [])
        .map((action) => action.Put?.Item)
        .filter((item) => s(item?.status) === 'COMPLETED')
        .map((item) => s(item?.pk))
        .filter((pk): pk is string => pk !== undefined);
      return { operation: 'commit', transaction: true, pk: pks[0], pks, token: undefined };
    }
    case 'PutItemCommand': {
      const item = input.Item as Record<string, unknown> | undefined;
      const status = s(item?.status);
      const operation =
        status === 'IN_PROGRESS'
          ? 'claim'
          : status === 'COMPLETED'
            ? 'commit'
            : status === 'QUARANTINED'
              ? 'quarantine'
              : 'other-write';
      const pk = s(item?.pk);
      return { operation, transaction: false, pk, pks: pk ? [pk] : [], token: s(item?.lease_owner) };
    }
    case 'UpdateItemCommand':
    case 'DeleteItemCommand': {
      const values = input.ExpressionAttributeValues as Record<string, unknown> | undefined;
      const pk = s((input.Key as Record<string, unknown> | undefined)?.pk);
      return {
        operation: commandName === 'UpdateItemCommand' ? 'complete' : 'release',
        transaction: false,
        pk,
        pks: pk ? [pk] : [],
        token: s(values?.[':token']),
      };
    }
    default:
      return { operation: 'read', transaction: false, pk: undefined, pks: [], token: undefined };
  }
}

function errorFor(kind: Exclude<SdkFaultKind, 'timeout-after-write'>): Error {
  switch (kind) {
    case 'throttling':
      return throttlingError();
    case 'server-error':
      return internalServerError();
    case 'transaction-conflict':
      return transactionConflictError();
  }
}
