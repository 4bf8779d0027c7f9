/**
 * Hostile binary encodings, generated: a valid encoding is kept as pieces (the bytes it carries and the
 * numbers that say how much follows: counts, lengths, indexes, tags), and fast-check draws what to do to
 * it: a number claiming far more than the bytes hold or just past them, a negative one, a varint longer
 * than any integer, a cut anywhere, random bytes spliced in. The shapes a valid encoding may take
 * (thousands of empty items, deep nesting) are drawn by the formats' own generators (hostile-orders.ts).
 */
import fc from 'fast-check';

/** What a number in an encoding says. */
export type NumberRole = 'count' | 'length' | 'index' | 'tag' | 'varint';

export type Piece =
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | {
      readonly kind: 'number';
      readonly role: NumberRole;
      readonly value: bigint;
      readonly encode: (value: bigint) => number[];
    };

export const bytesPiece = (bytes: Uint8Array | readonly number[]): Piece => ({
  kind: 'bytes',
  bytes: bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes),
});

export type Mutation =
  /** A count or a length replaced: huge, negative, or `extra` past the bytes that follow it. */
  | {
      readonly kind: 'claim';
      readonly at: number;
      readonly claim: 'huge' | 'negative' | 'past-end';
      readonly amount: bigint;
    }
  /** A number's varint replaced by one of `continuations` bytes with the high bit set, then `last`. */
  | {
      readonly kind: 'overlong';
      readonly at: number;
      readonly continuations: number;
      readonly last: number | null;
    }
  /** Everything from `at` (a fraction of the length, in thousandths) on dropped. */
  | { readonly kind: 'cut'; readonly at: number }
  /** `bytes` inserted at `at` (thousandths of the length). */
  | { readonly kind: 'splice'; readonly at: number; readonly bytes: Uint8Array }
  /** Left as it is: the shape alone (empty items, nesting) is the test. */
  | { readonly kind: 'none' };

/** What can be done to any encoding: cut it, splice bytes into it, or leave it. */
const textualMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('cut' as const), at: fc.integer({ min: 0, max: 999 }) }),
  fc.record({
    kind: fc.constant('splice' as const),
    at: fc.integer({ min: 0, max: 999 }),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
  }),
  fc.constant({ kind: 'none' as const }),
);

/** JSON's: it has no counts or lengths to lie with. */
export const jsonMutation = textualMutation;

/** A binary encoding's: its counts and lengths too. */
export const binaryMutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('claim' as const),
      at: fc.nat(),
      claim: fc.constantFrom('huge' as const, 'negative' as const, 'past-end' as const),
      amount: fc.oneof(fc.bigInt({ min: 1n, max: 64n }), fc.bigInt({ min: 2n ** 16n, max: 2n ** 62n })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('overlong' as const),
      at: fc.nat(),
      continuations: fc.integer({ min: 10, max: 40 }),
      last: fc.option(fc.integer({ min: 0, max: 0x7f })),
    }),
  },
  { weight: 2, arbitrary: textualMutation },
);

/** The roles a claim may take over: numbers that say how much follows. */
const CLAIMABLE: ReadonlySet<NumberRole> = new Set(['count', 'length']);

/** The encoding's bytes after the mutation. */
export function render(pieces: readonly Piece[], change: Mutation): Buffer {
  const encoded = pieces.map((piece) =>
    piece.kind === 'bytes' ? piece.bytes : Uint8Array.from(piece.encode(piece.value)),
  );
  const numberAt = (at: number, roles?: ReadonlySet<NumberRole>) => {
    const indexes = pieces.flatMap((piece, index) =>
      piece.kind === 'number' && (roles === undefined || roles.has(piece.role)) ? [index] : [],
    );
    const index = indexes[at % Math.max(indexes.length, 1)];
    const piece = index === undefined ? undefined : pieces[index];
    return index === undefined || piece?.kind !== 'number' ? undefined : { index, piece };
  };
  if (change.kind === 'claim') {
    const found = numberAt(change.at, CLAIMABLE);
    if (found !== undefined) {
      const following = encoded.slice(found.index + 1).reduce((sum, part) => sum + part.length, 0);
      const claimed =
        change.claim === 'huge'
          ? change.amount
          : change.claim === 'negative'
            ? -change.amount
            : BigInt(following) + change.amount;
      encoded[found.index] = Uint8Array.from(found.piece.encode(claimed));
    }
  } else if (change.kind === 'overlong') {
    const found = numberAt(change.at);
    if (found !== undefined) {
      const continuations = Array.from({ length: change.continuations }, () => 0x80);
      encoded[found.index] = Uint8Array.from(
        change.last === null ? continuations : [...continuations, change.last],
      );
    }
  }
  const whole = Buffer.concat(encoded);
  const at =
    change.kind === 'cut' || change.kind === 'splice' ? Math.floor((whole.length * change.at) / 1000) : 0;
  if (change.kind === 'cut') return whole.subarray(0, at);
  if (change.kind === 'splice')
    return Buffer.concat([whole.subarray(0, at), change.bytes, whole.subarray(at)]);
  return whole;
}
