/**
 * A failed batch's id for people: the last characters of its object's name. The name ends with a random
 * UUID (the key's last segment, https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html), so
 * eight of them tell batches apart, and the id can be found in the bucket (`aws s3 ls --recursive | grep`).
 * Where two names share the ending, both ids grow until they differ. `show` and `replay` take the id, any
 * longer ending, the whole name or the whole key.
 */
import { UserError } from '../cli/user-error.js';
import type { BatchObject } from './batch-source.js';
import { nameOf } from './failed-batch.js';

const SHORT_ID_CHARS = 8;
/** Shorter endings match too many names to be meant as an id. */
const MIN_ID_CHARS = 4;

/** The id of each name among `names`: its shortest ending of at least 8 characters no other name has. */
export function shortIds(names: readonly string[]): Map<string, string> {
  const ids = new Map<string, string>();
  const unique = [...new Set(names)];
  for (const name of unique) {
    let length = Math.min(SHORT_ID_CHARS, name.length);
    while (
      length < name.length &&
      unique.some((other) => other !== name && other.endsWith(name.slice(-length)))
    ) {
      length++;
    }
    ids.set(name, name.slice(-length));
  }
  return ids;
}

/** The object an id names; a one-line error when none does or several do. */
export function resolveBatchId(id: string, objects: readonly BatchObject[], where: string): BatchObject {
  const matches = objects.filter(
    (object) =>
      object.key === id ||
      (id.length >= MIN_ID_CHARS && !id.includes('/') && nameOf(object.key).endsWith(id)),
  );
  const [match, ...others] = matches;
  if (match === undefined) {
    throw new UserError(
      `no failed batch ${id} in ${where}: \`msk-inbox failed-batches list\` prints the ids`,
    );
  }
  if (others.length > 0) {
    const ids = shortIds(objects.map((object) => nameOf(object.key)));
    const named = matches
      .slice(0, 3)
      .map((object) => ids.get(nameOf(object.key)))
      .join(', ');
    throw new UserError(`${id} names ${matches.length} failed batches (${named}...): give more of the id`);
  }
  return match;
}
