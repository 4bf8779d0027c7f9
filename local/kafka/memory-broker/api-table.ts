/**
 * The APIs the in-memory broker speaks, with the versions it implements, and the ApiVersions request that
 * tells clients so. kafkajs 2.2.4 asks ApiVersions first on every connection and then uses, per API, the
 * lower of its own highest version and the broker's `max_version` (src/protocol/requests/index.js,
 * `lookup`): Produce v7 and Metadata v6 here. An API missing from the table is one kafkajs refuses to
 * use (KafkaJSServerDoesNotSupportApiKey): an idempotent producer stops at InitProducerId, for instance.
 *
 * Only non-flexible versions: Produce 3-7 (3 is the first with magic-2 batches), Metadata 4-6 (4 is the
 * first with allow_auto_topic_creation), ApiVersions 0-2. https://kafka.apache.org/protocol#protocol_api_keys
 */
import { KafkaErrorCode } from './error-codes.js';
import { handleMetadata } from './metadata-request.js';
import { handleProduce } from './produce-request.js';
import type { RequestHandler } from './request-context.js';
import { WireWriter } from './wire-format.js';

export interface ApiDefinition {
  readonly apiKey: number;
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  readonly handle: RequestHandler;
}

export const API_VERSIONS_KEY = 18;

/**
 * ApiVersions request (any version up to 2): no fields. Response v0: error_code [api_key min_version
 * max_version]; v1+ adds throttle_time_ms. A version above 2 gets a v0 response with UNSUPPORTED_VERSION
 * and the list, so the client retries with one it finds there (KIP-511); v3+ are flexible, which this
 * front does not parse.
 */
const handleApiVersions: RequestHandler = async (version) => {
  const supported = version <= 2;
  const writer = new WireWriter()
    .int16(supported ? KafkaErrorCode.NONE : KafkaErrorCode.UNSUPPORTED_VERSION)
    .array(SUPPORTED_APIS, (entry, api) => {
      entry.int16(api.apiKey).int16(api.minVersion).int16(api.maxVersion);
    });
  if (supported && version >= 1) writer.int32(0); // throttle_time_ms
  return writer.toBuffer();
};

export const SUPPORTED_APIS: readonly ApiDefinition[] = [
  { apiKey: 0, name: 'Produce', minVersion: 3, maxVersion: 7, handle: handleProduce },
  { apiKey: 3, name: 'Metadata', minVersion: 4, maxVersion: 6, handle: handleMetadata },
  { apiKey: API_VERSIONS_KEY, name: 'ApiVersions', minVersion: 0, maxVersion: 2, handle: handleApiVersions },
];

/**
 * The handler for a request header's key and version; undefined when this front does not speak it. A
 * broker closes the connection then, except for ApiVersions, which answers any version.
 */
export function findHandler(apiKey: number, version: number): RequestHandler | undefined {
  const api = SUPPORTED_APIS.find((candidate) => candidate.apiKey === apiKey);
  if (api === undefined) return undefined;
  if (apiKey === API_VERSIONS_KEY) return api.handle;
  return version >= api.minVersion && version <= api.maxVersion ? api.handle : undefined;
}
