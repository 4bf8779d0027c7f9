import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The path of an executable `command` on the PATH, or undefined: a look, no process started. */
export function findOnPath(command: string, path = process.env.PATH ?? ''): string | undefined {
  for (const directory of path.split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, command);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here, or not executable: look further.
    }
  }
  return undefined;
}
