import { describe, expect, it } from 'vitest';
import { ageText } from '../../../operator/table-text.js';

describe('ageText', () => {
  it('says a duration in its two largest units, the second left out when zero', () => {
    const h = 3_600_000;
    expect([0, 999, 45_000, 725_000, 3 * h + 5_000, 3 * h + 1_200_000, 52 * h + 7_000].map(ageText)).toEqual([
      '0s',
      '0s',
      '45s',
      '12m 5s',
      '3h',
      '3h 20m',
      '2d 4h',
    ]);
    expect(ageText(undefined)).toBe('-');
    expect(ageText(-5_000)).toBe('0s');
  });
});
