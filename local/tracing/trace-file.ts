/**
 * The local stand-in for the ADOT layer's exporter: where the function's spans go when the runtime is told
 * a file (LOCAL_TRACES_FILE_VARIABLE), one OTLP/JSON request per line, and how they are read back.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fromOtlpRequest, type OtlpTraceRequest, type TracedSpan } from './otlp-json.js';

/** The function's environment variable that names the traces file; unset, nothing is traced locally. */
export const LOCAL_TRACES_FILE_VARIABLE = 'MSK_INBOX_LOCAL_TRACES_FILE';

/** Every span in the file, in the order they ended; none when there is no file. */
export function readTraceFile(path: string): TracedSpan[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => fromOtlpRequest(JSON.parse(line) as OtlpTraceRequest));
}
