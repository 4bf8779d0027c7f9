/** The report's section on decoding within the budget (bench/measure/decode-cost.ts). */
import { BUFFER_ITEMS, DECODE_BUDGET, OBJECT_ITEMS } from '../lambdas/core/decode-budget.js';
import type { DecodeCostMeasurement } from './measure/decode-cost.js';

export function decodeCostSection({ decoded, refused }: DecodeCostMeasurement): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
  const binary = decoded.filter((row) => row.format !== 'JSON');
  const worst = Math.max(...binary.map((row) => row.retainedPerByte));
  return `## Decoding within the budget

One value of each shape in this process, the collector run before each reading (docs/design.md#value-formats).
The binary formats' budget (lambdas/core/decode-budget.ts): ${DECODE_BUDGET.itemFloor.toLocaleString('en-US')} + ${DECODE_BUDGET.itemsPerByte} items a byte,
a record, message, array or map counting ${OBJECT_ITEMS} besides its fields or elements and a bytes value ${BUFFER_ITEMS},
nesting to ${DECODE_BUDGET.maxDepth}.
"Kept" is the heap the plain value holds, "while decoding" the most the heap grew, garbage included, each
per byte of payload.

| format | value | payload | kept, bytes a byte | while decoding | ms |
|---|---|---:|---:|---:|---:|
${decoded
  .map(
    (row) =>
      `| ${row.format} | ${row.shape} | ${kb(row.payloadBytes)} | ${row.retainedPerByte.toFixed(1)} | ${row.peakPerByte.toFixed(1)} | ${row.milliseconds.toFixed(0)} |`,
  )
  .join('\n')}

At its budget's edge a binary value keeps at most ${worst.toFixed(1)} bytes of heap a byte, as JSON's own worst shapes
do; the largest invocation Lambda delivers (6 MB of event, at most about 4.5 MB of values once base64 is
undone) keeps at most about ${((worst * 4.5 * 1024 * 1024) / 1024 / 1024).toFixed(0)} MB of decoded values.

Refused:

| format | value | payload | µs | reason |
|---|---|---:|---:|---|
${refused
  .map(
    (row) =>
      `| ${row.format} | ${row.shape} | ${row.payloadBytes.toLocaleString('en-US')} B | ${row.microseconds.toFixed(0)} | ${row.error} |`,
  )
  .join('\n')}
`;
}
