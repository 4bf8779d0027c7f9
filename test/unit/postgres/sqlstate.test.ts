/** The SQLSTATE taxonomy for what the driver raises without one (lambdas/postgres/sqlstate.ts). */
import { describe, expect, it } from 'vitest';
import { classifySqlFailure } from '../../../lambdas/postgres/sqlstate.js';

describe('classifySqlFailure without a SQLSTATE', () => {
  it("takes pg-pool's wait for a connection that did not come as transient: every connection was busy", () => {
    expect(classifySqlFailure(new Error('timeout exceeded when trying to connect'))).toBe('transient');
  });

  it("takes the driver's query timeout as transient, as 57014 is", () => {
    expect(classifySqlFailure(new Error('Query read timeout'))).toBe('transient');
  });

  it('takes a lost connection as systemic: every record would fail alike', () => {
    expect(classifySqlFailure(new Error('Connection terminated unexpectedly'))).toBe('systemic');
  });

  it('judges a server error by its SQLSTATE class', () => {
    const withCode = (code: string) => Object.assign(new Error('server'), { code });
    expect(classifySqlFailure(withCode('23505'))).toBe('permanent');
    expect(classifySqlFailure(withCode('40P01'))).toBe('transient');
    expect(classifySqlFailure(withCode('42P01'))).toBe('systemic');
  });
});
