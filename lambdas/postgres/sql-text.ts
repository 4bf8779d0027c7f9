/**
 * Postgres text cannot hold U+0000, which Kafka ids and topics may (an event id is any well-formed
 * Unicode: lambdas/core/dedup-key.ts). Keys are stored in an injective form, so two ids never share a row;
 * text kept for people is stored with the character replaced.
 */

const ESCAPE = '\\';

/**
 * A key as stored: itself when it holds no U+0000 and does not start with a backslash, else a backslash
 * then the key with `\` doubled and U+0000 as `\0`. Two different keys never give one stored key.
 */
export function storedKey(key: string): string {
  if (!key.includes('\u0000') && !key.startsWith(ESCAPE)) return key;
  return ESCAPE + key.replaceAll(ESCAPE, ESCAPE + ESCAPE).replaceAll('\u0000', `${ESCAPE}0`);
}

/** The key a stored key was made from (storedKey's inverse). */
export function keyOfStored(stored: string): string {
  if (!stored.startsWith(ESCAPE)) return stored;
  return stored.slice(1).replace(/\\(\\|0)/g, (_, escaped: string) => (escaped === '0' ? '\u0000' : ESCAPE));
}

/** Text for people (a source, a message): U+0000 shown as U+FFFD. */
export function storedText(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD');
}
