/**
 * Where the event source mapping's failed batches are: its on-failure S3 bucket, or the local emulator's
 * folder that stands in for it (docs/local.md: the same keys, the same JSON). Objects are listed cheaply
 * (key, size, time) and read one by one, since each holds a whole batch.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { UserError } from '../cli/user-error.js';

export interface BatchObject {
  /** The object key (in a folder, the path below it with `/`). */
  readonly key: string;
  readonly sizeBytes: number;
  /** When the object was written: S3's LastModified, a file's mtime. */
  readonly lastModifiedMs: number;
}

export interface FailedBatchSource {
  /** For messages: `folder <dir>` or `s3://<bucket>/<prefix>`. */
  describe(): string;
  list(): Promise<BatchObject[]>;
  read(key: string): Promise<string>;
}

/** The emulator's on-failure folder (`npm start` writes `.local-run/on-failure`). */
export class FolderBatchSource implements FailedBatchSource {
  /** As the person gave it: messages never name the machine's absolute paths. */
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  describe(): string {
    return `folder ${this.#dir}`;
  }

  async list(): Promise<BatchObject[]> {
    let names: string[];
    try {
      names = await readdir(this.#dir, { recursive: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        throw new UserError(
          `--dir ${this.#dir}: no such folder (npm start writes its failed batches to .local-run/on-failure)`,
          { cause: error },
        );
      }
      if (code === 'ENOTDIR')
        throw new UserError(`--dir ${this.#dir} is a file, not a folder`, { cause: error });
      throw error;
    }
    const objects: BatchObject[] = [];
    for (const name of names) {
      const info = await stat(join(this.#dir, name));
      if (!info.isFile()) continue;
      objects.push({ key: name.split(sep).join('/'), sizeBytes: info.size, lastModifiedMs: info.mtimeMs });
    }
    return objects;
  }

  async read(key: string): Promise<string> {
    return readFile(join(this.#dir, ...key.split('/')), 'utf8');
  }
}
