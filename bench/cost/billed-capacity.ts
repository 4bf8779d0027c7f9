/**
 * The write and read units DynamoDB bills for what a delivery sent, by the rules and sources in
 * docs/aws-facts.md#item-sizes-and-capacity-units: each recorded item priced by its size, which the bench
 * reads from snapshots of the tables taken before and after the delivery (capacity-meter.ts).
 */
import { itemSizeBytes, readUnits, writeUnits } from './capacity-units.js';
import type { Recorded, RecordedAccess } from './request-recorder.js';

export interface BilledCapacity {
  readonly writeUnits: number;
  readonly readUnits: number;
}

/** Item sizes in bytes, by table and then by key. */
export type ItemSizes = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** The tables as they were before the delivery and after it. */
export interface SizesAround {
  readonly before: ItemSizes;
  readonly after: ItemSizes;
}

/**
 * An item the delivery changed several times (an account updated by each of its records) is priced at
 * the larger of its sizes before and after the delivery: its sizes in between are not seen, and the
 * bench's items stay far under 1 KB, where every size bills the same.
 */
export function priceRecorded(recorded: Recorded, sizes: SizesAround): BilledCapacity {
  const sizeOf = (access: RecordedAccess): number | undefined => {
    const before = sizes.before.get(access.table)?.get(access.pk);
    const after = sizes.after.get(access.table)?.get(access.pk);
    if (before === undefined && after === undefined) return undefined;
    return Math.max(before ?? 0, after ?? 0);
  };
  const putBytes = new Map<string, number>();
  let write = 0;
  for (const access of recorded.writes) {
    write += writeUnits(
      writtenBytes(access, sizeOf, sizes, putBytes),
      access.transactional ? 'transactional' : 'standard',
    );
    if (access.item) putBytes.set(`${access.table}\u0000${access.pk}`, itemSizeBytes(access.item));
  }
  let read = 0;
  for (const access of recorded.reads) read += readUnits(sizeOf(access) ?? 0, access.read ?? 'eventual');
  for (const query of recorded.queries) read += readUnits(query.bytes, query.read);
  return { writeUnits: write, readUnits: read };
}

/**
 * The bytes a write is billed on. Succeeded: a Put the larger of its item and the one it replaced, an
 * Update the larger of the item before and after, a Delete the item deleted, a ConditionCheck the item
 * checked. Refused on a condition: the item that stood (none: the 1-unit minimum, from 0 bytes). A
 * cancelled transaction is priced as if it had committed (assumed: no AWS page says).
 */
function writtenBytes(
  access: RecordedAccess,
  sizeOf: (access: RecordedAccess) => number | undefined,
  sizes: SizesAround,
  putBytes: ReadonlyMap<string, number>,
): number {
  if (access.refused && !access.transactional) return sizeOf(access) ?? 0;
  const before = sizes.before.get(access.table)?.get(access.pk);
  switch (access.kind) {
    case 'Put':
      return Math.max(access.item ? itemSizeBytes(access.item) : 0, before ?? 0);
    case 'Delete':
      // An item put and deleted in the same delivery is in neither snapshot: its Put tells its size.
      return before ?? putBytes.get(`${access.table}\u0000${access.pk}`) ?? 0;
    default:
      return sizeOf(access) ?? 0;
  }
}
