/**
 * What DynamoDB bills for one item read or written, from the item's size
 * (docs/aws-facts.md#item-sizes-and-capacity-units): an item's size is the UTF-8 bytes of its attribute
 * names plus its values' sizes; a write costs 1 write unit per started KB of the item (2 in a transaction),
 * a read 1 read unit per started 4 KB (half eventually consistent, 2 in a transaction). The bench computes
 * this itself because DynamoDB Local's ConsumedCapacity is not what DynamoDB bills (docs/benchmarks.md).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

export type WriteKind = 'standard' | 'transactional';
/** `eventual` and `strong` are GetItem's ConsistentRead false and true; `transactional` a TransactGetItems Get. */
export type ReadKind = 'eventual' | 'strong' | 'transactional';

const KB = 1024;
const READ_UNIT_BYTES = 4 * KB;
const READ_MULTIPLIER: Readonly<Record<ReadKind, number>> = { eventual: 0.5, strong: 1, transactional: 2 };

/** The size DynamoDB gives an item (or a map's contents), in bytes. */
export function itemSizeBytes(item: Readonly<Record<string, AttributeValue>>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) bytes += Buffer.byteLength(name) + valueBytes(value);
  return bytes;
}

/** Write units for one item of `bytes`: per started KB, doubled in a transaction. */
export function writeUnits(bytes: number, kind: WriteKind): number {
  return Math.max(1, Math.ceil(bytes / KB)) * (kind === 'transactional' ? 2 : 1);
}

/**
 * Read units for `bytes` read as one unit of rounding: one item for GetItem, BatchGetItem and TransactGetItems
 * (each item rounded on its own), all the items a Query returned or a Scan evaluated together. Reading
 * nothing still costs the minimum: an item that does not exist bills as one of 4 KB.
 */
export function readUnits(bytes: number, kind: ReadKind): number {
  return Math.max(1, Math.ceil(bytes / READ_UNIT_BYTES)) * READ_MULTIPLIER[kind];
}

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  // A list or a map: 3 bytes of its own, 1 per element, and the elements (a map's names included).
  if (value.L !== undefined) return value.L.reduce((sum, element) => sum + 1 + valueBytes(element), 3);
  if (value.M !== undefined) return 3 + Object.keys(value.M).length + itemSizeBytes(value.M);
  if (value.SS !== undefined) return value.SS.reduce((sum, s) => sum + Buffer.byteLength(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, n) => sum + numberBytes(n), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, b) => sum + b.byteLength, 0);
  throw new Error(`an attribute value of no known type: ${Object.keys(value).join(', ')}`);
}

/** 1 byte per two significant digits, plus 1 (leading and trailing zeroes are not significant). */
function numberBytes(text: string): number {
  const digits = text
    .replace(/^[-+]/, '')
    .replace(/e.*$/i, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}
