/**
 * KafkaConsumer's `openTelemetry` prop (lib/open-telemetry.ts): the ADOT layer, its wrapper and exporter
 * variables, X-Ray's active tracing, the role's span writes, cdk-nag clean; without it none of them; a bad
 * layer ARN or a variable the prop owns refused in one line.
 */
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { InboxTable } from '../../lib/inbox-table.js';
import { InvalidPropsError } from '../../lib/invalid-props-error.js';
import { KafkaConsumer, type KafkaConsumerProps } from '../../lib/kafka-consumer.js';
import { ADOT_EXEC_WRAPPER } from '../../lib/open-telemetry.js';
import {
  acknowledgements,
  allowedPairs,
  EXAMPLE_CLUSTER_ARN,
  FIXTURE_ENTRY,
  onlyResource,
  policyStatements,
  projectApp,
  unacknowledgedFindings,
} from './support.js';

const LAYER = 'arn:aws:lambda:eu-west-1:615299751070:layer:AWSOpenTelemetryDistroJs:6';
const XRAY_WRITES = [
  'xray:PutSpans',
  'xray:PutSpansForIndexing',
  'xray:PutTelemetryRecords',
  'xray:PutTraceSegments',
];

function synth(overrides: Partial<KafkaConsumerProps> = {}) {
  const app = projectApp();
  const stack = new Stack(app, 'Orders', { env: { account: '123456789012', region: 'eu-west-1' } });
  new KafkaConsumer(stack, 'Consumer', {
    consumerName: 'orders',
    source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
    topic: 'orders',
    consumerGroupId: 'orders-group',
    entry: FIXTURE_ENTRY,
    inboxTable: new InboxTable(stack, 'Inbox'),
    ...overrides,
  });
  return { app, template: Template.fromStack(stack) };
}

function functionProps(template: Template) {
  const fn = Object.values(template.findResources('AWS::Lambda::Function')).find(
    (resource) => (resource as { Properties: { Handler?: string } }).Properties.Handler === 'index.handler',
  ) as { Properties: Record<string, unknown> } | undefined;
  if (!fn) throw new Error('no consumer function');
  return fn.Properties as {
    Layers?: unknown[];
    TracingConfig?: { Mode: string };
    Environment: { Variables: Record<string, unknown> };
  };
}

describe('KafkaConsumer openTelemetry', () => {
  it("adds the ADOT layer, its wrapper, X-Ray's OTLP endpoint, active tracing and the role's span writes, cdk-nag clean", () => {
    const { app, template } = synth({ openTelemetry: { adotLayerArn: LAYER } });
    const fn = functionProps(template);
    expect(fn.Layers).toEqual([LAYER]);
    expect(fn.TracingConfig).toEqual({ Mode: 'Active' });
    expect(fn.Environment.Variables).toMatchObject({
      AWS_LAMBDA_EXEC_WRAPPER: ADOT_EXEC_WRAPPER,
      OTEL_SERVICE_NAME: 'orders',
      KAFKA_CONSUMER_GROUP_ID: 'orders-group',
    });
    expect(JSON.stringify(fn.Environment.Variables.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)).toContain(
      'https://xray.eu-west-1.',
    );
    const pairs = allowedPairs(policyStatements(template));
    for (const action of XRAY_WRITES) expect(pairs).toContain(`Allow ${action} on "*"`);
    expect(unacknowledgedFindings(app)).toEqual([]);
    expect(acknowledgements(app).map((ack) => ack.rule)).toContain('AwsSolutions-IAM5[Resource::*]');
  });

  it('sends to the endpoint given, and keeps tracing as the team set it', () => {
    const { template } = synth({
      openTelemetry: { adotLayerArn: LAYER, otlpTracesEndpoint: 'https://collector.example.com/v1/traces' },
      tracing: lambda.Tracing.PASS_THROUGH,
    });
    const fn = functionProps(template);
    expect(fn.Environment.Variables.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).toBe(
      'https://collector.example.com/v1/traces',
    );
    expect(fn.TracingConfig).toEqual({ Mode: 'PassThrough' });
  });

  it('adds no layer, wrapper or X-Ray writes without the prop', () => {
    const { app, template } = synth();
    const fn = functionProps(template);
    expect(fn.Layers).toBeUndefined();
    expect(fn.TracingConfig).toBeUndefined();
    expect(fn.Environment.Variables.AWS_LAMBDA_EXEC_WRAPPER).toBeUndefined();
    expect(allowedPairs(policyStatements(template)).filter((pair) => pair.includes('xray:'))).toEqual([]);
    expect(unacknowledgedFindings(app)).toEqual([]);
    expect(onlyResource(template, 'AWS::Lambda::EventSourceMapping')).toBeDefined();
  });

  it('refuses a layer ARN that is not one, and a variable the prop sets, each in one line', () => {
    expect(() => synth({ openTelemetry: { adotLayerArn: 'AWSOpenTelemetryDistroJs' } })).toThrow(
      /openTelemetry.adotLayerArn "AWSOpenTelemetryDistroJs" is not a layer version ARN/,
    );
    try {
      synth({
        openTelemetry: { adotLayerArn: LAYER },
        environment: { OTEL_SERVICE_NAME: 'mine' },
      });
      expect.unreachable('synth accepted OTEL_SERVICE_NAME beside openTelemetry');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidPropsError);
      expect((error as InvalidPropsError).problems).toEqual([
        "environment sets OTEL_SERVICE_NAME: these come from the construct's props; remove them",
      ]);
    }
  });
});
