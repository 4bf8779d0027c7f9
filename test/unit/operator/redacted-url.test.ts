import { describe, expect, it } from 'vitest';
import { redacted } from '../../../operator/redacted-url.js';

describe('redacted', () => {
  it('hides the password of a URL, given with a user or without one, and leaves a URL without one', () => {
    expect(redacted('postgres://app:s3cret@db:5432/app')).toBe('postgres://app:***@db:5432/app');
    expect(redacted('redis://:s3cret@cache:6379')).toBe('redis://:***@cache:6379');
    expect(redacted('redis://cache:6379')).toBe('redis://cache:6379');
  });
});
