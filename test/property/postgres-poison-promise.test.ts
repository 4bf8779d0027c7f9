/**
 * No record can block its partition, on Postgres: the hostile batches of test/property/poison-promise.test.ts
 * (local/poison/poison-batches.ts), each delivered twice to the sample's consumer on `postgresInbox` with
 * its SQL effect, each on schemas of its own. The promise is local/poison/poison-promise.ts's.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { postgresPoisonStore } from '../../local/poison/order-sql-consumer-under-test.js';
import { measureEvent } from '../../local/poison/poison-batches.js';
import { checkPoisonPromise } from '../../local/poison/poison-promise.js';
import { checkedPoisonBatch } from '../../local/poison/poison-soak.js';
import { describeOnPostgres } from '../support/postgres.js';
import { postgresSoakTarget } from '../support/postgres-soak.js';

/** Bounded for npm test (each batch migrates schemas of its own); the soak runs more. */
const CASES = { postgresql: 25, pglite: 8 } as const;

describeOnPostgres('hostile batches against Postgres, each delivered twice', (server) => {
  const soak = postgresSoakTarget(server);

  it('keep the promise: no throw, nothing named, every record final, nothing applied twice', async () => {
    const store = postgresPoisonStore(soak.connections(), soak.runId);
    let largest = 0;
    let deepest = 0;
    let index = 0;
    await fc.assert(
      fc.asyncProperty(checkedPoisonBatch, async (event) => {
        const figures = measureEvent(event);
        largest = Math.max(largest, figures.largestRecordBytes);
        deepest = Math.max(deepest, figures.deepest);
        const batch = await store.open(index++);
        try {
          expect(await checkPoisonPromise(event, batch.consumer)).toEqual([]);
        } finally {
          await batch.drop();
        }
      }),
      { numRuns: CASES[server.kind] },
    );
    console.log(
      `poison promise on ${server.kind}: ${CASES[server.kind]} batches, largest record ${largest} bytes, deepest nesting ${deepest}`,
    );
  }, 300_000);
});
