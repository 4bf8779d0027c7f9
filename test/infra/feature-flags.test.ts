import { CURRENTLY_RECOMMENDED_FLAGS } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import { CDK_JSON_CONTEXT } from '../support/cdk-context.js';
import { projectApp } from './support.js';

/**
 * `cdk init` writes aws-cdk-lib's recommended feature flags into a new app's cdk.json; this app carries the
 * same ones, so `cdk synth` reports none unconfigured and the stack uses today's defaults. An aws-cdk-lib
 * upgrade that adds a flag fails here until cdk.json has it (review its template diff first: docs/deploy.md).
 */
describe('cdk.json feature flags', () => {
  it('sets every flag aws-cdk-lib recommends for a new app, to the recommended value', () => {
    const missingOrDifferent = Object.entries(CURRENTLY_RECOMMENDED_FLAGS)
      .filter(([flag, value]) => JSON.stringify(CDK_JSON_CONTEXT[flag]) !== JSON.stringify(value))
      .map(([flag]) => flag);
    expect(missingOrDifferent).toEqual([]);
    expect(Object.keys(CURRENTLY_RECOMMENDED_FLAGS).length).toBeGreaterThan(80);
  });

  it('reaches the apps the infra tests build', () => {
    const app = projectApp({ context: { topic: 'orders' } });
    expect(app.node.tryGetContext('@aws-cdk/aws-iam:minimizePolicies')).toBe(true);
    expect(app.node.tryGetContext('topic')).toBe('orders');
  });
});
