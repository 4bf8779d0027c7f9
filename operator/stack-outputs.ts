/**
 * `--stack NAME`: what an operator would otherwise copy from the deployed stack, read from its outputs
 * (CloudFormation DescribeStacks, https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_DescribeStacks.html).
 * The output keys (stack-output-keys.ts) are the ones addOperatorOutputs (lib/operator-outputs.ts) declares,
 * in the sample stack as in a team's own (docs/operate.md#where-it-looks).
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { POSTGRES_STACK_OUTPUT_KEYS, type PostgresStackOutputs } from '../lambdas/postgres/stack-outputs.js';
import { credentialAdvice } from './aws-errors.js';
import { UserError } from './cli/user-error.js';
import { STACK_OUTPUT_KEYS } from './stack-output-keys.js';

export { STACK_OUTPUT_KEYS } from './stack-output-keys.js';

export type StackOutputs = {
  readonly stackName: string;
  /** A Postgres inbox's outputs (POSTGRES_STACK_OUTPUT_KEYS): empty for a DynamoDB one. */
  readonly postgres: PostgresStackOutputs;
} & { readonly [K in keyof typeof STACK_OUTPUT_KEYS]?: string };

export interface StackLocation {
  readonly region: string | undefined;
  readonly profile: string | undefined;
}

/** The stack's outputs; a stack that is not there, or that may not be read, is a one-line UserError. */
export async function readStackOutputs(stackName: string, where: StackLocation): Promise<StackOutputs> {
  // The SDK's own AWS_ENDPOINT_URL_CLOUDFORMATION reaches another endpoint (the tests' stand-in).
  const client = new CloudFormationClient({
    maxAttempts: 3,
    ...(where.region === undefined ? {} : { region: where.region }),
    ...(where.profile === undefined ? {} : { profile: where.profile }),
  });
  try {
    const { Stacks = [] } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const outputs = new Map((Stacks[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
    const read = (keys: Readonly<Record<string, string>>) => {
      const values: Record<string, string> = {};
      for (const [field, key] of Object.entries(keys)) {
        const value = outputs.get(key);
        if (value) values[field] = value;
      }
      return values;
    };
    return { stackName, ...read(STACK_OUTPUT_KEYS), postgres: read(POSTGRES_STACK_OUTPUT_KEYS) };
  } catch (error) {
    // The region the client used, for the message: the flag's, else the SDK's own choice.
    const region = await client.config.region().catch(() => undefined);
    throw stackAdvice(stackName, region, error) ?? error;
  } finally {
    client.destroy();
  }
}

function stackAdvice(stackName: string, region: string | undefined, error: unknown): UserError | undefined {
  const name = (error as { name?: string }).name ?? '';
  const message = error instanceof Error ? error.message : String(error);
  const options = { cause: error };
  // CloudFormation answers a stack it does not know with a ValidationError "Stack with id X does not exist".
  if (name === 'ValidationError' && /does not exist/.test(message)) {
    return new UserError(
      `stack ${stackName} not found in ${region ?? 'the default region'}: check --stack, --region or --profile`,
      options,
    );
  }
  if (name === 'AccessDenied' || name === 'AccessDeniedException') {
    return new UserError(
      `not allowed to read stack ${stackName}: your identity needs cloudformation:DescribeStacks on it (docs/operate.md#permissions)`,
      options,
    );
  }
  return credentialAdvice(error);
}
