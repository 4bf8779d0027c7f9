/** What a command reads and writes besides the table: injectable so tests run commands in process. */
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline/promises';

export interface OperatorIo {
  /** The tool's output, on stdout. */
  print(text: string): void;
  /** Progress and notes for a person, on stderr. */
  note(text: string): void;
  /** A person's answer, or undefined when no one can answer (stdin is not a terminal). */
  ask(question: string): Promise<string | undefined>;
  nowMs(): number;
  /** Who runs the tool, for the audit attributes. */
  user(): string;
}

export const PROCESS_IO: OperatorIo = {
  print: (text) => process.stdout.write(`${text}\n`),
  note: (text) => process.stderr.write(`${text}\n`),
  async ask(question) {
    if (!process.stdin.isTTY) return undefined;
    const reader = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await reader.question(question);
    } finally {
      reader.close();
    }
  },
  nowMs: () => Date.now(),
  user: () => {
    try {
      return userInfo().username;
    } catch {
      return process.env.USER ?? 'unknown';
    }
  },
};
