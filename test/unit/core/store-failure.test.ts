import { describe, expect, it } from 'vitest';
import { classifyStoreFailure } from '../../../lambdas/core/store-failure.js';

const error = (name: string, message = '', extra: object = {}) =>
  Object.assign(new Error(message), { name, ...extra });

describe('classifyStoreFailure', () => {
  it('calls a refusal of the record content permanent, in DynamoDB and DynamoDB Local wordings', () => {
    for (const message of [
      'One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of 2048 bytes',
      'Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 bytes',
      'Item size has exceeded the maximum allowed size',
      'Item size to update has exceeded the maximum allowed size',
      'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk',
      'Transaction request cannot include multiple operations on one item',
      'Transaction payload size cannot exceed 4MB. Payload Size: 4290121',
      'Nesting Levels have exceeded supported limits',
    ]) {
      expect(classifyStoreFailure(error('ValidationException', message))).toBe('permanent');
    }
    const cancelled = error('TransactionCanceledException', 'cancelled', {
      CancellationReasons: [
        { Code: 'None' },
        { Code: 'ValidationError', Message: 'Item size has exceeded the maximum allowed size' },
      ],
    });
    expect(classifyStoreFailure(cancelled)).toBe('permanent');
  });

  it('calls a wrong setup or a request the code built wrong systemic', () => {
    expect(
      classifyStoreFailure(
        error('ResourceNotFoundException', 'Cannot do operations on a non-existent table'),
      ),
    ).toBe('systemic');
    expect(classifyStoreFailure(error('AccessDeniedException'))).toBe('systemic');
    expect(
      classifyStoreFailure(
        error(
          'ValidationException',
          'Invalid UpdateExpression: An expression attribute value used in expression is not defined',
        ),
      ),
    ).toBe('systemic');
    expect(
      classifyStoreFailure(error('ValidationException', 'One of the required keys was not given a value')),
    ).toBe('systemic');
  });

  it('calls everything else transient', () => {
    expect(classifyStoreFailure(error('ThrottlingException'))).toBe('transient');
    expect(classifyStoreFailure(error('ServiceUnavailable'))).toBe('transient');
    expect(classifyStoreFailure(error('TimeoutError'))).toBe('transient');
    expect(classifyStoreFailure('not an error')).toBe('transient');
  });
});
