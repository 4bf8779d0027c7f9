/**
 * The local stand-in for the ADOT layer's exporter: where the function's spans go when the runtime is told
 * a file (LOCAL_TRACES_FILE_VARIABLE), one OTLP/JSON request per line, and how they are read back.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import {
  fromOtlpRequest,
  type OtlpTraceRequest,
  type SpanRecord,
  type TracedSpan,
  toOtlpRequest,
} from './otlp-json.js';

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

/** Appends one OTLP/JSON request of these spans as a line: one write, so writers on other threads never interleave. */
export function appendSpans(
  path: string,
  service: string,
  scope: string,
  spans: readonly SpanRecord[],
): void {
  if (spans.length === 0) return;
  appendFileSync(path, `${JSON.stringify(toOtlpRequest(service, scope, spans))}\n`);
}
