#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { InvalidPropsError } from '../lib/invalid-props-error.js';
import { readAppContext } from '../sample/app/app-context.js';
import { MskInboxStack } from '../sample/app/msk-inbox-stack.js';

// CloudFormation schema validation more than doubles synth time; test/infra runs it on this stack instead.
const app = new App({ builtinCloudFormationValidation: false });
try {
  new MskInboxStack(
    app,
    'MskInbox',
    readAppContext((key) => app.node.tryGetContext(key)),
  );
} catch (error) {
  if (error instanceof InvalidPropsError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
