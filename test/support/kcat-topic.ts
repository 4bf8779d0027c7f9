/** A topic of the local Kafka broker read back as a consumer would, through kcat (test/support/broker.ts). */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ReadRecord {
  readonly partition: number;
  readonly key: string;
  readonly payload: string;
  readonly headers: Record<string, string>;
}

/** Every record of the topic, as kcat reads it from the beginning, in partition and offset order. */
export async function readTopic(bootstrapServers: string, topic: string): Promise<ReadRecord[]> {
  const { stdout } = await run(
    'kcat',
    ['-b', bootstrapServers, '-C', '-t', topic, '-o', 'beginning', '-e', '-J', '-q'],
    { timeout: 20_000 },
  );
  return stdout
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const record = JSON.parse(line) as {
        partition: number;
        key: string;
        payload: string;
        headers?: string[];
      };
      const headers: Record<string, string> = {};
      for (let index = 0; index + 1 < (record.headers?.length ?? 0); index += 2) {
        headers[record.headers?.[index] as string] = record.headers?.[index + 1] as string;
      }
      return { partition: record.partition, key: record.key, payload: record.payload, headers };
    })
    .sort((a, b) => a.partition - b.partition);
}
