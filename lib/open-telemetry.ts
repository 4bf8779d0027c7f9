/**
 * The KafkaConsumer's `openTelemetry` prop: the ADOT Lambda layer (the OpenTelemetry SDK the consumer's
 * `openTelemetryTracing()` records into, registered before the handler loads), its exporter pointed at an
 * OTLP traces endpoint (X-Ray's by default), and the role's right to send there (docs/tracing.md#deploying).
 */
import { Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';

export interface OpenTelemetryProps {
  /**
   * The ADOT Lambda layer for Node.js in the function's Region and architecture
   * (`arn:aws:lambda:<region>:615299751070:layer:AWSOpenTelemetryDistroJs:<version>`, listed at
   * https://aws-otel.github.io/docs/getting-started/lambda). It registers the SDK through
   * `AWS_LAMBDA_EXEC_WRAPPER`, which this construct sets.
   */
  readonly adotLayerArn: string;
  /**
   * Where the layer's exporter sends spans (OTLP over HTTP).
   * @default X-Ray's OTLP endpoint in the stack's Region, `https://xray.<region>.amazonaws.com/v1/traces`
   * (it needs CloudWatch Transaction Search on in the account), and the role may write spans to it
   */
  readonly otlpTracesEndpoint?: string;
}

/** The layer's wrapper script: the ADOT layer's documented value. */
export const ADOT_EXEC_WRAPPER = '/opt/otel-instrument';

/** The variables the prop sets, each named once; `environment` may not set them beside it. */
const VARIABLES = {
  wrapper: 'AWS_LAMBDA_EXEC_WRAPPER',
  serviceName: 'OTEL_SERVICE_NAME',
  tracesEndpoint: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
} as const;
export const OPEN_TELEMETRY_VARIABLES: readonly string[] = Object.values(VARIABLES);

/**
 * The X-Ray actions spans are written with: PutSpans and PutSpansForIndexing for the OTLP endpoint (Transaction
 * Search indexes through the latter), PutTraceSegments and PutTelemetryRecords for Lambda's active tracing.
 * None takes a resource-level permission (docs/aws-facts.md#x-ray-and-opentelemetry).
 */
const XRAY_WRITE_ACTIONS = [
  'xray:PutSpans',
  'xray:PutSpansForIndexing',
  'xray:PutTraceSegments',
  'xray:PutTelemetryRecords',
];

/** Why an ARN is not the ADOT layer's, or undefined. */
export function adotLayerArnProblem(arn: string): string | undefined {
  if (Token.isUnresolved(arn)) return undefined;
  return /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:layer:[A-Za-z0-9_-]+:\d+$/.test(arn)
    ? undefined
    : `openTelemetry.adotLayerArn "${arn}" is not a layer version ARN (arn:aws:lambda:<region>:<account>:layer:<name>:<version>)`;
}

/** Adds the layer, its variables and the role's X-Ray writes to the consumer's function (props validated). */
export function enableOpenTelemetry(
  fn: lambda.Function,
  role: iam.Role,
  props: OpenTelemetryProps,
  serviceName: string,
): void {
  fn.addLayers(lambda.LayerVersion.fromLayerVersionArn(fn, 'AdotLayer', props.adotLayerArn));
  const endpoint =
    props.otlpTracesEndpoint ?? `https://xray.${Stack.of(fn).region}.${Stack.of(fn).urlSuffix}/v1/traces`;
  fn.addEnvironment(VARIABLES.wrapper, ADOT_EXEC_WRAPPER);
  fn.addEnvironment(VARIABLES.serviceName, serviceName);
  fn.addEnvironment(VARIABLES.tracesEndpoint, endpoint);
  const policy = new iam.Policy(fn, 'TracesPolicy', {
    statements: [new iam.PolicyStatement({ actions: XRAY_WRITE_ACTIONS, resources: ['*'] })],
  });
  role.attachInlinePolicy(policy);
  Validations.of(policy).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'X-Ray takes no resource-level permission for writing spans or segments (PutSpans, PutSpansForIndexing, PutTraceSegments, PutTelemetryRecords): https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsx-ray.html',
  });
}
