/**
 * `msk-inbox/opentelemetry`: the consumer's spans through OpenTelemetry (docs/tracing.md). An entry of its
 * own so that a consumer without tracing bundles no OpenTelemetry code; `@opentelemetry/api` is a peer
 * dependency, the team's own copy, so these spans go to the SDK the team (or the ADOT layer) registers.
 */
export {
  type OpenTelemetryTracingOptions,
  openTelemetryTracing,
  TRACER_NAME,
} from './opentelemetry-tracing.js';
export { ATTR as SPAN_ATTRIBUTES, type DedupOutcome } from './span-attributes.js';
