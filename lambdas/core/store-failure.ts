/**
 * One taxonomy of DynamoDB failures, decided here and nowhere else (docs/design.md#failure-taxonomy):
 * - transient: throttling, 5xx, timeouts, transaction conflicts, an outage. The record is reported and
 *   Lambda retries it; the SDK has already retried.
 * - permanent for this record: DynamoDB refused what the record put in the request (a key over 2,048
 *   bytes, an item over 400 KB, an empty key, two writes on one item...). No retry can fix it, so the
 *   record is quarantined with DynamoDB's message and acked.
 * - systemic: the table is missing, access is denied, the request the code builds is wrong. Every record
 *   would fail alike: each is reported (nothing is quarantined en masse) and the batch fails loudly.
 */
export type FailureClass = 'transient' | 'permanent' | 'systemic';

/**
 * DynamoDB's messages for a request refused because of a record's content, in DynamoDB's and DynamoDB
 * Local's wordings (docs/aws-facts.md#dynamodb), and the SDK's for numbers it cannot send. None of them
 * quotes a value but the SDK's, which names the number.
 */
const CAUSED_BY_CONTENT: readonly RegExp[] = [
  // Key size: "Size of hashkey has exceeded the maximum size limit of 2048 bytes" (DynamoDB),
  // "Hash primary key values must be under 2048 bytes..." (DynamoDB Local).
  /size of (hash|range)key has exceeded|primary key values must be under|aggregated size of all range keys/i,
  // Item size: PutItem and UpdateItem.
  /item size (to update )?has exceeded/i,
  /cannot contain an empty string value/i,
  /type mismatch for (key|index key)/i,
  /multiple operations on one item/i,
  /transaction payload size cannot exceed/i,
  /nesting levels have exceeded/i,
  /number (overflow|underflow)/i,
  /incorrect operand type for operator or function/i,
  // The SDK's own refusal, before any request, of a number it cannot send exactly.
  /Number\.(MAX|MIN)_SAFE_INTEGER/,
];

/** Errors that say the function's setup is wrong, not a record. */
const SYSTEMIC_ERRORS: ReadonlySet<string> = new Set([
  'ResourceNotFoundException',
  'AccessDeniedException',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'MissingAuthenticationTokenException',
  'IncompleteSignatureException',
  'ExpiredTokenException',
]);

/** The class of a validation message: permanent when the record's content caused it, else systemic. */
export function classifyValidationMessage(message: string): 'permanent' | 'systemic' {
  return CAUSED_BY_CONTENT.some((pattern) => pattern.test(message)) ? 'permanent' : 'systemic';
}

/**
 * The class of an error the SDK threw (after its own retries). A cancelled transaction is classified by
 * its reasons: the caller maps condition failures first.
 */
export function classifyStoreFailure(error: unknown): FailureClass {
  if (!(error instanceof Error)) return 'transient';
  if (SYSTEMIC_ERRORS.has(error.name)) return 'systemic';
  if (error.name === 'ValidationException') return classifyValidationMessage(error.message);
  if (error.name === 'TransactionCanceledException') {
    const invalid = validationReason(error);
    if (invalid !== undefined) return classifyValidationMessage(invalid);
  }
  return 'transient';
}

/** The message of a cancelled transaction's `ValidationError` reason, if it has one. */
export function validationReason(error: unknown): string | undefined {
  const reasons = (error as { CancellationReasons?: { Code?: string; Message?: string }[] })
    .CancellationReasons;
  const invalid = reasons?.find((reason) => reason.Code === 'ValidationError');
  return invalid === undefined ? undefined : (invalid.Message ?? 'ValidationError');
}

/**
 * How many records in a row a container quarantines for DynamoDB refusing their content, with no record
 * applied in between (refusal-streak.ts). Past it, refusals are taken as systemic (a deploy that writes an
 * impossible item for every record): the records are reported, not quarantined en masse.
 */
export const MAX_REJECTIONS_WITHOUT_SUCCESS = 3;
