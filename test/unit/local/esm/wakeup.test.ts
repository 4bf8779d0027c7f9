import { describe, expect, it } from 'vitest';
import { Wakeup } from '../../../../local/esm/wakeup.js';

describe('Wakeup', () => {
  it('settles every pending wait at once when woken', async () => {
    const wakeup = new Wakeup();
    const started = Date.now();
    const waits = [wakeup.next(10_000), wakeup.next(10_000)];
    wakeup.wake();
    await Promise.all(waits.map((wait) => wait.promise));
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('settles a wait after its timeout when nothing wakes it', async () => {
    const started = Date.now();
    await new Wakeup().next(30).promise;
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('does not settle a wait begun after the wake, and cancel settles it', async () => {
    const wakeup = new Wakeup();
    wakeup.wake();
    const wait = wakeup.next(10_000);
    let settled = false;
    void wait.promise.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    wait.cancel();
    await wait.promise;
    expect(settled).toBe(true);
  });
});
