/** The variants of the tracing cost (bench/tracing/tracing-child.ts), and what one child reports. */
export const TRACING_VARIANTS = ['off', 'api', 'sdk'] as const;
export type TracingVariant = (typeof TRACING_VARIANTS)[number];

export interface TracingSample {
  readonly variant: TracingVariant;
  readonly records: number;
  /** User plus system CPU of the measured batches, per record. */
  readonly cpuMicrosPerRecord: number;
  /** Spans exported (sdk only). */
  readonly spans: number;
}
