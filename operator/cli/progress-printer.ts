/**
 * Progress for a person: on a terminal the running count is one line rewritten in place; in a pipe or CI
 * each count is a line of its own (the caller sends about one a second).
 */
import type { WriteStream } from 'node:tty';

type Output = Pick<WriteStream, 'write'> & { readonly isTTY?: boolean; readonly columns?: number };

export class ProgressPrinter {
  readonly #out: Output;
  #statusShown = false;

  constructor(out: Output = process.stdout) {
    this.#out = out;
  }

  /** A line that stays. */
  log(line: string): void {
    this.#clearStatus();
    this.#out.write(`${line}\n`);
  }

  /** The running count: replaces the previous one on a terminal. */
  status(line: string): void {
    if (!this.#out.isTTY) {
      this.#out.write(`${line}\n`);
      return;
    }
    const width = this.#out.columns ?? 0;
    this.#out.write(`\r\x1b[2K${width > 1 ? line.slice(0, width - 1) : line}`);
    this.#statusShown = true;
  }

  /** Leaves the last count on screen and moves to a new line. */
  finish(): void {
    if (this.#statusShown) this.#out.write('\n');
    this.#statusShown = false;
  }

  #clearStatus(): void {
    if (this.#statusShown) this.#out.write('\r\x1b[2K');
    this.#statusShown = false;
  }
}
