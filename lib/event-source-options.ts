/**
 * The event source mapping's options beyond batching and retries: provisioned pollers and their group,
 * filters (and their KMS key), the schema registry and the on-failure destination; their synth-time
 * checks and the IAM each needs. KafkaConsumerProps extends these (lib/kafka-consumer-props.ts).
 */
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import {
  bindFailureDestination,
  type FailureDestination,
  failureDestinationProblems,
} from './failure-destination.js';
import { filterProblems, type KafkaRecordFilter } from './kafka-filters.js';
import type { KafkaSource } from './kafka-source.js';
import { bindSchemaRegistry, type SchemaRegistry, schemaRegistryProblems } from './schema-registry.js';

/** Provisioned mode: the only mode in which Lambda honours a Kafka partial batch response. */
export interface ProvisionedPollers {
  /**
   * Pollers kept running (1-200).
   * @default 1
   */
  readonly minimumPollers?: number;
  /**
   * Upper bound for scaling (1-2000, at least `minimumPollers`); useful up to the partition count.
   * @default 2
   */
  readonly maximumPollers?: number;
  /**
   * Mappings in the brokers' VPC with the same group name share event poller units (up to 100 mappings,
   * 2000 maximum pollers in all), which lowers the cost of provisioned mode.
   * https://docs.aws.amazon.com/lambda/latest/dg/kafka-scaling-modes.html
   * @default - pollers of this mapping's own
   */
  readonly pollerGroupName?: string;
}

export interface EventSourceOptions {
  /**
   * Lambda's filter criteria on the record's `value`: only records matching one of them reach the function;
   * the others are committed without an invocation, and counted as `FilteredOutEventCount`. JSON values
   * take field patterns (`{ value: { type: ['order.placed'] } }`), plain strings rules on value itself
   * (`{ value: [{ prefix: 'order ' }] }`). A value that is not JSON, or not UTF-8, is delivered whatever a
   * field pattern says (docs/aws-facts.md#event-filtering). Checked at synth against Lambda's rules.
   * https://docs.aws.amazon.com/lambda/latest/dg/kafka-filtering.html
   * @default - every record is delivered
   */
  readonly filters?: readonly KafkaRecordFilter[];
  /**
   * A customer managed key Lambda encrypts the filter criteria with (the key's policy lets Lambda decrypt).
   * https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html
   * @default - an AWS owned key
   */
  readonly filterEncryption?: kms.IKey;
  /**
   * The mapping's schema registry integration (AWS Glue or Confluent): records are validated against their
   * schema and delivered as JSON (the handler reads them unchanged) or in their source format.
   * @default - none: values reach the function as produced
   */
  readonly schemaRegistry?: SchemaRegistry;
  /**
   * Where records the mapping gives up on go: the construct's S3 bucket (metadata and the whole batch), a
   * Kafka topic of the same cluster (the records), an SQS queue or an SNS topic (metadata only).
   * @default { kind: 's3' }
   */
  readonly onFailure?: FailureDestination;
}

/** Synth-time problems with these options. */
export function eventSourceOptionProblems(options: EventSourceOptions, topic: string): string[] {
  const problems = [
    ...filterProblems(options.filters),
    ...schemaRegistryProblems(options.schemaRegistry),
    ...failureDestinationProblems(options.onFailure, topic),
  ];
  if (options.filterEncryption !== undefined && options.filters === undefined) {
    problems.push(
      'filterEncryption is set without filters: there is nothing to encrypt; add filters or remove it',
    );
  }
  return problems;
}

/** The mapping props these options give, after granting what each needs on the role. */
export function mappingOptions(
  options: EventSourceOptions,
  role: iam.IRole,
  source: KafkaSource,
  consumerGroupId: string,
  s3Destination: () => lambda.IEventSourceDlq,
): Pick<
  lambda.EventSourceMappingOptions,
  'filters' | 'filterEncryption' | 'schemaRegistryConfig' | 'onFailure'
> {
  const destination = options.onFailure ?? { kind: 's3' };
  return {
    ...(options.filters === undefined
      ? {}
      : { filters: options.filters.map((filter) => lambda.FilterCriteria.filter({ ...filter })) }),
    ...(options.filterEncryption === undefined ? {} : { filterEncryption: options.filterEncryption }),
    ...(options.schemaRegistry === undefined
      ? {}
      : { schemaRegistryConfig: bindSchemaRegistry(options.schemaRegistry, role) }),
    onFailure:
      destination.kind === 's3'
        ? s3Destination()
        : bindFailureDestination(destination, role, source, consumerGroupId),
  };
}
