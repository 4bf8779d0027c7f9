import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type ContextKey, readAppContext } from '../../sample/app/app-context.js';
import { EXAMPLE_CLUSTER_ARN, EXAMPLE_SECRET_ARN } from './support.js';

const read = (context: Partial<Record<ContextKey, unknown>>) => readAppContext((key) => context[key]);

describe('readAppContext', () => {
  it('builds an MSK source with IAM authentication from mskClusterArn, topic and consumerGroupId', () => {
    expect(
      read({ mskClusterArn: EXAMPLE_CLUSTER_ARN, topic: 'orders', consumerGroupId: 'order-consumer' }),
    ).toEqual({
      source: { kind: 'msk', clusterArn: EXAMPLE_CLUSTER_ARN },
      topic: 'orders',
      consumerGroupId: 'order-consumer',
    });
  });

  it("exports the consumer's spans through the ADOT layer named by adotLayerArn", () => {
    const adotLayerArn = 'arn:aws:lambda:us-east-1:615299751070:layer:AWSOpenTelemetryDistroJs:6';
    expect(
      read({ mskClusterArn: EXAMPLE_CLUSTER_ARN, topic: 'orders', consumerGroupId: 'g', adotLayerArn }),
    ).toMatchObject({ openTelemetry: { adotLayerArn } });
  });

  it('builds a self-managed SASL/SCRAM source in a VPC from comma-separated lists', () => {
    expect(
      read({
        bootstrapServers: 'b-1.example.com:9096, b-2.example.com:9096',
        secretArn: EXAMPLE_SECRET_ARN,
        subnetIds: 'subnet-0a,subnet-0b',
        securityGroupId: 'sg-0c',
        topic: 'orders',
        consumerGroupId: 'order-consumer',
        alarmEmail: 'oncall@example.com',
        consumerName: 'orders-eu',
      }),
    ).toEqual({
      source: {
        kind: 'self-managed',
        bootstrapServers: ['b-1.example.com:9096', 'b-2.example.com:9096'],
        saslScramSecretArn: EXAMPLE_SECRET_ARN,
        vpc: { subnetIds: ['subnet-0a', 'subnet-0b'], securityGroupIds: ['sg-0c'] },
      },
      topic: 'orders',
      consumerGroupId: 'order-consumer',
      alarmEmail: 'oncall@example.com',
      consumerName: 'orders-eu',
    });
  });

  it('names every missing key when the context is empty', () => {
    expect(() => read({})).toThrow(
      /context topic is missing[\s\S]*context consumerGroupId is missing[\s\S]*context mskClusterArn \(Amazon MSK\) or bootstrapServers with secretArn/,
    );
  });

  it('fails when mskClusterArn and bootstrapServers are both given', () => {
    expect(() =>
      read({
        mskClusterArn: EXAMPLE_CLUSTER_ARN,
        bootstrapServers: 'b:9096',
        topic: 't',
        consumerGroupId: 'g',
      }),
    ).toThrow(/context mskClusterArn and bootstrapServers contradict each other/);
  });

  it('fails when self-managed Kafka has no secretArn', () => {
    expect(() => read({ bootstrapServers: 'b:9096', topic: 't', consumerGroupId: 'g' })).toThrow(
      /context secretArn is missing/,
    );
  });

  it('fails when subnetIds come without securityGroupId', () => {
    expect(() =>
      read({
        bootstrapServers: 'b:9096',
        secretArn: EXAMPLE_SECRET_ARN,
        subnetIds: 'subnet-0a',
        topic: 't',
        consumerGroupId: 'g',
      }),
    ).toThrow(/context subnetIds and securityGroupId go together/);
  });

  it('fails when MSK is given VPC settings', () => {
    expect(() =>
      read({
        mskClusterArn: EXAMPLE_CLUSTER_ARN,
        securityGroupId: 'sg-0c',
        topic: 't',
        consumerGroupId: 'g',
      }),
    ).toThrow(/context subnetIds and securityGroupId apply to self-managed Kafka only/);
  });

  it('tells how to deploy', () => {
    expect(() => read({})).toThrow(
      /npx cdk deploy -c mskClusterArn=\.\.\. -c topic=\.\.\. -c consumerGroupId=\.\.\./,
    );
  });
});

describe('bin/app.ts', () => {
  it('exits with the problems, not a stack trace, when context is missing', async () => {
    const root = resolve(import.meta.dirname, '..', '..');
    const run = promisify(execFile)('npx', ['tsx', 'bin/app.ts'], {
      cwd: root,
      env: {
        ...process.env,
        CDK_CONTEXT_JSON: JSON.stringify({ topic: 'orders' }),
        CDK_OUTDIR: mkdtempSync(join(tmpdir(), 'msk-inbox-app-')),
      },
    });
    const failure = await run.then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain('context consumerGroupId is missing');
    expect(failure?.stderr).toContain('context mskClusterArn (Amazon MSK) or bootstrapServers');
    expect(failure?.stderr).not.toContain('    at ');
  });
});
