/**
 * No value can exhaust memory (docs/design.md#value-formats): generated hostile encodings of each format
 * (counts and lengths claiming what the bytes do not hold, overlong varints, cuts, splices, deep nesting,
 * runs of empty items) between two valid orders of one partition, against DynamoDB Local. The property
 * runs in a child process with a small heap (test/support/hostile-encodings-child.ts), so a value that
 * exhausts it kills the child and fails here, with the child's last words, instead of the test runner.
 */
import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, inject, it } from 'vitest';
import { DECODE_BUDGET } from '../../lambdas/core/decode-budget.js';
import { ORDER_PLACED, type OrderPlaced } from '../../sample/order-consumer/order-placed.js';
import { render } from '../support/hostile-encodings.js';
import type { HostileRunSummary } from '../support/hostile-encodings-child.js';
import { HOSTILE_FORMATS, orderShape } from '../support/hostile-orders.js';

const CHILD = fileURLToPath(new URL('../support/hostile-encodings-child.ts', import.meta.url));
/** The child's heap: the harness needs about 50 MB; one unbounded value in these runs needs hundreds. */
const HEAP_MB = 160;
/** Batches a format; a run of a format takes 5 to 10 s. */
const RUNS = 40;

interface ChildResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runChild(format: string, seed: number): Promise<ChildResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [`--max-old-space-size=${HEAP_MB}`, '--import', 'tsx', CHILD, format, String(RUNS), String(seed)],
      {
        env: { ...process.env, MSK_INBOX_DYNAMODB_ENDPOINT: inject('dynamoDbEndpoint') },
        maxBuffer: 16 * 1024 * 1024,
        timeout: 240_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, signal: error?.signal ?? null, stdout, stderr });
      },
    );
  });
}

describe.each(HOSTILE_FORMATS)('$name encodings the hostile ones are made from', (format) => {
  it('decode, unchanged, to the order and the shape they encode', () => {
    const order: OrderPlaced = {
      event_id: 'evt-1',
      type: ORDER_PLACED,
      order_id: 'ord-1',
      account_id: 'acct-1',
      amount: 7,
    };
    const withinBudget = orderShape.filter(
      // An empty Protobuf Line is 24 items: 30 of them stay within the floor whatever the rest holds.
      (shape) => shape.depth <= DECODE_BUDGET.maxDepth && shape.emptyItems <= 30,
    );
    fc.assert(
      fc.property(withinBudget, (shape) => {
        const parsed = format.valueFormat.parse(
          render(format.pieces(order, shape), { kind: 'none' }),
          undefined,
        );
        expect(parsed.ok).toBe(true);
        const value = (parsed.ok ? parsed.value : {}) as Record<string, unknown>;
        expect(value).toMatchObject(order);
        // Protobuf's empty items are Lines; Avro's and JSON's are marks of their own.
        const emptyLines = format.name === 'protobuf' ? shape.emptyItems : 0;
        expect((value.lines as unknown[]).length).toBe(shape.lines.length + emptyLines);
        let depth = 1;
        for (let level = value.parent; level; level = (level as { parent?: unknown }).parent) depth += 1;
        expect(depth).toBe(shape.depth);
      }),
      { numRuns: 100 },
    );
  });
});

describe.each(HOSTILE_FORMATS.map((format) => format.name))(
  '%s values under generated hostile encodings',
  (format) => {
    it(`quarantine what cannot be decoded and apply the rest of the partition once, in a ${HEAP_MB} MB heap`, async () => {
      const seed = randomInt(2 ** 31);
      const result = await runChild(format, seed);
      const replay = `replay: node --max-old-space-size=${HEAP_MB} --import tsx test/support/hostile-encodings-child.ts ${format} ${RUNS} ${seed} (MSK_INBOX_DYNAMODB_ENDPOINT set)`;
      expect(
        { code: result.code, signal: result.signal },
        `${replay}\n${result.stderr.slice(-4_000)}`,
      ).toEqual({ code: 0, signal: null });

      const summary = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '') as HostileRunSummary;
      expect(summary.cases).toBe(RUNS);
      expect(summary.undecodable, replay).toBeGreaterThan(0);
      const kinds =
        format === 'json' ? ['cut', 'splice', 'none'] : ['claim', 'overlong', 'cut', 'splice', 'none'];
      for (const kind of kinds)
        expect(summary.mutations[kind as keyof HostileRunSummary['mutations']]).toBeGreaterThan(0);
      console.log(`hostile ${format}: ${JSON.stringify(summary)}`);
    }, 300_000);
  },
);
