import { describe, expect, it } from 'vitest';
import { holdUntil } from '../../../bench/measure/hold-until.js';

// Only the promise that matters to every modelled round trip: never over before its deadline. How long after
// it ends depends on the machine, and is not asserted.
describe('holdUntil', () => {
  it.each([0.25, 0.9, 2.5])('is never over before a deadline %f ms away', async (rttMs) => {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const deadline = performance.now() + rttMs;
      await holdUntil(deadline);
      expect(performance.now()).toBeGreaterThanOrEqual(deadline);
    }
  });

  it('is over at once for a deadline already passed', async () => {
    let over = false;
    const hold = holdUntil(performance.now() - 1).then(() => {
      over = true;
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(over).toBe(true);
    await hold;
  });
});
