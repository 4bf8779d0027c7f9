/**
 * The Kafka protocol's primitive types, read from and written to buffers: fixed-width big-endian integers,
 * INT16-length strings, INT32-length bytes and arrays, and the zigzag varints of the record format.
 * Only the non-flexible encodings: this front advertises no flexible version (no compact strings, no
 * tagged fields). https://kafka.apache.org/protocol#protocol_types
 */

/** The bytes do not hold what the protocol says they hold: the connection is closed, as a broker does. */
export class WireFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireFormatError';
  }
}

export class WireReader {
  readonly #buffer: Buffer;
  #offset = 0;

  constructor(buffer: Buffer) {
    this.#buffer = buffer;
  }

  get offset(): number {
    return this.#offset;
  }

  get remaining(): number {
    return this.#buffer.length - this.#offset;
  }

  int8(): number {
    return this.#buffer.readInt8(this.#take(1));
  }

  int16(): number {
    return this.#buffer.readInt16BE(this.#take(2));
  }

  int32(): number {
    return this.#buffer.readInt32BE(this.#take(4));
  }

  uint32(): number {
    return this.#buffer.readUInt32BE(this.#take(4));
  }

  int64(): bigint {
    return this.#buffer.readBigInt64BE(this.#take(8));
  }

  boolean(): boolean {
    return this.int8() !== 0;
  }

  /** STRING: INT16 length, then UTF-8; a length of -1 is only valid for NULLABLE_STRING. */
  string(): string {
    const value = this.nullableString();
    if (value === null) throw new WireFormatError('null where a STRING is required');
    return value;
  }

  nullableString(): string | null {
    const length = this.int16();
    if (length === -1) return null;
    if (length < 0) throw new WireFormatError(`string length ${length}`);
    return this.#buffer.toString('utf8', this.#take(length), this.#offset);
  }

  /** NULLABLE_BYTES (and RECORDS): INT32 length, then the bytes, copied out of the request frame. */
  nullableBytes(): Buffer | null {
    const length = this.int32();
    if (length === -1) return null;
    if (length < 0) throw new WireFormatError(`bytes length ${length}`);
    return this.bytes(length);
  }

  bytes(length: number): Buffer {
    const start = this.#take(length);
    return Buffer.from(this.#buffer.subarray(start, start + length));
  }

  /** ARRAY: INT32 count, then the items; -1 (null) is only valid for nullable arrays. */
  array<T>(readItem: (reader: WireReader) => T): T[] {
    const items = this.nullableArray(readItem);
    if (items === null) throw new WireFormatError('null where an ARRAY is required');
    return items;
  }

  nullableArray<T>(readItem: (reader: WireReader) => T): T[] | null {
    const count = this.int32();
    if (count === -1) return null;
    // Each item takes at least one byte: a larger count is a corrupt frame, not a reason to loop.
    if (count < 0 || count > this.remaining) throw new WireFormatError(`array count ${count}`);
    return Array.from({ length: count }, () => readItem(this));
  }

  /** VARINT: zigzag-encoded 32-bit integer, 7 bits a byte, least significant group first. */
  varint(): number {
    let raw = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.#buffer.readUInt8(this.#take(1));
      raw += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return (raw >>> 1) ^ -(raw & 1);
    }
    throw new WireFormatError('varint longer than 5 bytes');
  }

  /** VARLONG: zigzag-encoded 64-bit integer; returned as a number (timestamps and deltas fit). */
  varlong(): number {
    let raw = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const byte = this.#buffer.readUInt8(this.#take(1));
      raw |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return Number((raw >> 1n) ^ -(raw & 1n));
    }
    throw new WireFormatError('varlong longer than 10 bytes');
  }

  /** A record's key, value or header value: VARINT length (-1 for null), then the bytes. */
  varintBytes(): Buffer | null {
    const length = this.varint();
    if (length === -1) return null;
    if (length < 0) throw new WireFormatError(`varint bytes length ${length}`);
    return this.bytes(length);
  }

  /** A header key: VARINT length, then UTF-8. */
  varintString(): string {
    const length = this.varint();
    if (length < 0) throw new WireFormatError(`varint string length ${length}`);
    return this.#buffer.toString('utf8', this.#take(length), this.#offset);
  }

  #take(length: number): number {
    if (length > this.remaining) {
      throw new WireFormatError(`needs ${length} bytes at ${this.#offset}, has ${this.remaining}`);
    }
    const start = this.#offset;
    this.#offset += length;
    return start;
  }
}

/** Builds a response body from small pieces, joined once at the end. */
export class WireWriter {
  readonly #chunks: Buffer[] = [];

  int8(value: number): this {
    return this.#push(1, (buffer) => buffer.writeInt8(value));
  }

  int16(value: number): this {
    return this.#push(2, (buffer) => buffer.writeInt16BE(value));
  }

  int32(value: number): this {
    return this.#push(4, (buffer) => buffer.writeInt32BE(value));
  }

  int64(value: bigint | number): this {
    return this.#push(8, (buffer) => buffer.writeBigInt64BE(BigInt(value)));
  }

  boolean(value: boolean): this {
    return this.int8(value ? 1 : 0);
  }

  string(value: string): this {
    const bytes = Buffer.from(value, 'utf8');
    this.int16(bytes.length);
    this.#chunks.push(bytes);
    return this;
  }

  nullableString(value: string | null): this {
    return value === null ? this.int16(-1) : this.string(value);
  }

  array<T>(items: readonly T[], writeItem: (writer: this, item: T) => void): this {
    this.int32(items.length);
    for (const item of items) writeItem(this, item);
    return this;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.#chunks);
  }

  #push(size: number, write: (buffer: Buffer) => void): this {
    const buffer = Buffer.alloc(size);
    write(buffer);
    this.#chunks.push(buffer);
    return this;
  }
}
