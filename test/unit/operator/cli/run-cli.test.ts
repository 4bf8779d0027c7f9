import { describe, expect, it } from 'vitest';
import { describeFailure, isVerbose } from '../../../../operator/cli/run-cli.js';
import { UserError } from '../../../../operator/cli/user-error.js';

describe('describeFailure', () => {
  it('prints a person-fixable error as one line with the fix and exit code 2 when not verbose', () => {
    const failure = describeFailure(
      'npm start',
      new UserError('kcat is not installed: apt-get install kcat'),
      false,
    );
    expect(failure).toEqual({ text: 'npm start: kcat is not installed: apt-get install kcat', exitCode: 2 });
  });

  it('prints an unexpected error as its first line, exit code 1, pointing at --verbose when not verbose', () => {
    const failure = describeFailure('npm start', new Error('DynamoDB Local exited\njvm output\nmore'), false);
    expect(failure.exitCode).toBe(1);
    expect(failure.text).toBe('npm start: DynamoDB Local exited (--verbose shows the stack trace)');
  });

  it('prints the stack trace and its causes when verbose', () => {
    const error = new UserError('bad flag', { cause: new Error('the root cause') });
    const failure = describeFailure('npm start', error, true);
    expect(failure.exitCode).toBe(2);
    expect(failure.text).toMatch(/^UserError: bad flag\n\s+at /);
    expect(failure.text).toContain('caused by: Error: the root cause');
  });
});

describe('isVerbose', () => {
  it('is on with --verbose or a DEBUG value, and off otherwise', () => {
    expect(isVerbose(['--verbose'], {})).toBe(true);
    expect(isVerbose([], { DEBUG: '1' })).toBe(true);
    expect(isVerbose([], { DEBUG: '*' })).toBe(true);
    expect(isVerbose([], {})).toBe(false);
    expect(isVerbose([], { DEBUG: '' })).toBe(false);
    expect(isVerbose([], { DEBUG: '0' })).toBe(false);
  });
});
