/**
 * What the ADOT layer does before the handler loads, done locally: an OpenTelemetry SDK registered for the
 * whole execution environment (the context manager the records' scopes need, a tracer provider), its spans
 * written to a file as they end instead of sent to a collector. Loaded by the runtime worker only when the
 * function's environment names a file, so an untraced run loads no SDK.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { spanRecordOf } from './otlp-json.js';
import { appendSpans } from './trace-file.js';

/** Registers the SDK; spans of `serviceName` are appended to `path`. */
export function registerFileTracing(path: string, serviceName: string): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new SimpleSpanProcessor(otlpFileExporter(path, serviceName))],
  });
  trace.setGlobalTracerProvider(provider);
}

/** Appends each ended span at once: an environment killed mid-batch keeps what ended before. */
function otlpFileExporter(path: string, serviceName: string): SpanExporter {
  return {
    export(spans: ReadableSpan[], done) {
      try {
        const scope = spans[0]?.instrumentationScope.name ?? serviceName;
        appendSpans(path, serviceName, scope, spans.map(spanRecordOf));
        done({ code: 0 });
      } catch (error) {
        done({ code: 1, error: error as Error });
      }
    },
    shutdown: async () => undefined,
  };
}
