/**
 * CRC-32C (Castagnoli), the checksum of a v2 record batch: over everything from the attributes to the
 * batch end. https://kafka.apache.org/documentation/#recordbatch
 */

/** The reflected Castagnoli polynomial. */
const CASTAGNOLI = 0x82f63b78;

const TABLE = Uint32Array.from({ length: 256 }, (_, index) => {
  let crc = index;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ CASTAGNOLI : crc >>> 1;
  return crc >>> 0;
});

export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
