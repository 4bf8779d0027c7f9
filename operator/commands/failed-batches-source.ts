/** The flags that say where the failed batches are, and reading them: shared by list, show and replay. */
import { ProgressPrinter } from '../cli/progress-printer.js';
import { UserError } from '../cli/user-error.js';
import {
  type BatchObject,
  type FailedBatchSource,
  FolderBatchSource,
} from '../failed-batches/batch-source.js';
import { type FailedBatch, parseFailedBatch } from '../failed-batches/failed-batch.js';
import { S3BatchSource } from '../failed-batches/s3-batch-source.js';
import { endpointFlag, type OperatorTarget, stringFlag } from '../operator-target.js';
import type { OperatorIo } from './operator-io.js';

export const SOURCE_FLAGS = {
  dir: { type: 'string' },
  bucket: { type: 'string' },
  prefix: { type: 'string' },
  's3-endpoint': { type: 'string' },
} as const;

export const SOURCE_HELP = `Where the failed batches are (one of):
  --dir DIR          the local emulator's on-failure folder (\`npm start\` writes .local-run/on-failure)
  --bucket NAME      the mapping's on-failure S3 bucket (default with --stack: its FailedBatchesBucket output)
  --prefix P         only object keys starting with P (the mapping writes aws/lambda/<ESM UUID>/...)
  --s3-endpoint URL  an S3-compatible endpoint, addressed path-style, signed as --endpoint is (the SDK's
                     AWS_ENDPOINT_URL_S3 too)`;

type Values = Readonly<Record<string, string | boolean | undefined>>;

export function batchSource(values: Values, target: OperatorTarget): FailedBatchSource {
  const dir = stringFlag(values.dir);
  // A --dir means the local folder, not the stack's bucket.
  const bucket =
    stringFlag(values.bucket) ?? (dir === undefined ? target.stack?.failedBatchesBucket : undefined);
  const endpoint = stringFlag(values['s3-endpoint']);
  if (dir !== undefined && bucket !== undefined) {
    throw new UserError('--dir or --bucket, not both: one place holds the failed batches');
  }
  if (dir !== undefined) {
    if (endpoint !== undefined || values.prefix !== undefined) {
      throw new UserError('--prefix and --s3-endpoint go with --bucket, not --dir');
    }
    return new FolderBatchSource(dir);
  }
  if (bucket === undefined) {
    const stack =
      target.stack === undefined ? '' : `; stack ${target.stack.stackName} has no FailedBatchesBucket output`;
    throw new UserError(
      `where are the failed batches? pass --bucket NAME (the on-failure bucket) or --dir DIR (the emulator folder)${stack}`,
    );
  }
  endpointFlag('s3-endpoint', endpoint, 'http://127.0.0.1:9000');
  return new S3BatchSource({ bucket, prefix: stringFlag(values.prefix) ?? '', endpoint }, target);
}

export interface ReadBatches {
  readonly batches: FailedBatch[];
  /** Objects that are not on-failure records, with why: named, left alone. */
  readonly skipped: { readonly key: string; readonly why: string }[];
}

/** Reads and parses `objects`, saying which are not on-failure records; progress once a second. */
export async function readBatches(
  source: FailedBatchSource,
  objects: readonly BatchObject[],
  io: OperatorIo,
): Promise<ReadBatches> {
  const batches: FailedBatch[] = [];
  const skipped: { key: string; why: string }[] = [];
  const progress = new ProgressPrinter(process.stderr);
  let shownAtMs = io.nowMs();
  for (const [index, object] of objects.entries()) {
    if (io.nowMs() - shownAtMs >= 1_000) {
      progress.status(`reading ${index + 1}/${objects.length} objects of ${source.describe()}`);
      shownAtMs = io.nowMs();
    }
    const parsed = parseFailedBatch(object, await source.read(object.key));
    if (parsed.ok) {
      batches.push(parsed.batch);
    } else {
      skipped.push({ key: object.key, why: parsed.why });
      io.note(`skipped ${object.key}: not an on-failure record (${parsed.why})`);
    }
  }
  progress.finish();
  return { batches, skipped };
}

/** Oldest first: the order the mapping gave them up in. */
export function byTime(a: FailedBatch, b: FailedBatch): number {
  return a.timestampMs - b.timestampMs || a.name.localeCompare(b.name);
}
