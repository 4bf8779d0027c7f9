/** The SDK's failures an operator can fix, as one line that says how (the house style: operator/cli/). */
import { UserError } from './cli/user-error.js';

/** What the advice names of where the tool looked (a DynamoDB inbox's table, endpoint and region). */
export interface AdviceTarget {
  readonly tableName: string;
  readonly endpoint?: string | undefined;
  readonly region?: string | undefined;
}

export function adviceFor(target: AdviceTarget, error: unknown): UserError | undefined {
  const name = (error as { name?: string }).name ?? '';
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  const where =
    target.endpoint === undefined ? `in ${target.region ?? 'the default region'}` : `at ${target.endpoint}`;
  const options = { cause: error };
  if (name === 'ResourceNotFoundException') {
    return new UserError(
      `table ${target.tableName} (or its quarantine index) not found ${where}: check --table, --region or --endpoint`,
      options,
    );
  }
  const credentials = credentialAdvice(error);
  if (credentials !== undefined) return credentials;
  if (name === 'AccessDeniedException') {
    return new UserError(
      `not allowed: ${message.split('\n')[0]} (docs/operate.md lists the IAM actions)`,
      options,
    );
  }
  if (target.endpoint !== undefined && (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(message))) {
    return new UserError(
      `nothing answers at ${target.endpoint}: is DynamoDB Local running? (\`npm start -- --keep\` prints its endpoint)`,
      options,
    );
  }
  return undefined;
}

/** The failures any AWS call meets before it reaches the service: credentials and region. */
export function credentialAdvice(error: unknown): UserError | undefined {
  const name = (error as { name?: string }).name ?? '';
  const message = error instanceof Error ? error.message : String(error);
  const options = { cause: error };
  if (name === 'CredentialsProviderError' || /Could not load credentials/.test(message)) {
    return new UserError(
      'no AWS credentials found: set AWS_PROFILE (or --profile), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
      options,
    );
  }
  if (/Region is missing/i.test(message)) {
    return new UserError('no AWS region: pass --region or set AWS_REGION', options);
  }
  if (['UnrecognizedClientException', 'InvalidSignatureException', 'ExpiredTokenException'].includes(name)) {
    return new UserError(
      `AWS refused the credentials (${name}): refresh them or pick another --profile`,
      options,
    );
  }
  return undefined;
}
