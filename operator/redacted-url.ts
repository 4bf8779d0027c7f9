/** A connection URL for messages: its password, if any, never printed. */

/** The URL with its password replaced: `redis://:***@host`, `postgres://app:***@db/app`. */
export function redacted(url: string): string {
  // The user part may be empty: Redis URLs often carry a password alone (`redis://:secret@host`).
  return url.replace(/^(\w+:\/\/[^:/@]*:)[^@]*@/, '$1***@');
}
