/**
 * The errors a real DynamoDB (or the SDK's HTTP layer) raises that DynamoDB Local cannot be made to raise:
 * worded and shaped as the SDK delivers them, so the store's classification (lambdas/core/store-failure.ts)
 * meets what it meets on AWS. One definition for the soak's fault injection and the tests' faulty client.
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
 */

/** One reason of a cancelled transaction, in action order. */
export interface CancellationReason {
  readonly Code: string;
  readonly Message?: string;
  readonly Item?: unknown;
}

export function throttlingError(): Error {
  return Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
    name: 'ThrottlingException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

export function internalServerError(): Error {
  return Object.assign(new Error('Internal server error'), {
    name: 'InternalServerError',
    $fault: 'server',
    $metadata: { httpStatusCode: 500 },
  });
}

export function serviceUnavailableError(): Error {
  return Object.assign(new Error('Service unavailable'), {
    name: 'ServiceUnavailable',
    $fault: 'server',
    $metadata: { httpStatusCode: 503 },
  });
}

export function transactionCanceledError(reasons: readonly CancellationReason[]): Error {
  return Object.assign(
    new Error('Transaction cancelled, please refer cancellation reasons for specific reasons'),
    {
      name: 'TransactionCanceledException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
      CancellationReasons: reasons,
    },
  );
}

/** A transaction cancelled because another one held an item: the first action named, the rest `None`. */
export function transactionConflictError(actions = 3, conflicted = 0): Error {
  return transactionCanceledError(
    Array.from({ length: actions }, (_, action) =>
      action === conflicted
        ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }
        : { Code: 'None' },
    ),
  );
}

/** What the SDK's HTTP handler throws when the answer does not come in time. */
export function timeoutError(): Error {
  return Object.assign(new Error('Connection timed out after 5000 ms'), { name: 'TimeoutError' });
}

/** What the SDK meets when nothing listens: transient, so it retries before giving up. */
export function unreachableError(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });
}
