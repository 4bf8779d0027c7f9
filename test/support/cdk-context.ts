/**
 * The context `cdk.json` gives `cdk synth`, its feature flags above all: tests that build an App start from
 * it, so the templates they check are the ones `cdk synth` and `cdk deploy` make.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../local/project-paths.js';

const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
  readonly context?: Record<string, unknown>;
};

export const CDK_JSON_CONTEXT: Readonly<Record<string, unknown>> = cdkJson.context ?? {};
