/**
 * What a replay runs records through, for every command that replays (quarantine replay, failed-batches
 * replay): the deployed function through Lambda's Invoke API (`--function`, or `--stack`'s FunctionName
 * output) or a handler module loaded in this process (`--handler`). Exactly one; flags win over the stack.
 */
import { UserError } from './cli/user-error.js';
import { type ConsumerSettings, consumerSettingsOf, shellSettings } from './consumer-settings.js';
import { functionEnvironment, lambdaInvoker } from './lambda-invoke.js';
import { type Invoke, loadLocalHandler } from './local-handler.js';
import { endpointFlag, type OperatorTarget, stringFlag } from './operator-target.js';

const INVOKER_FLAGS = {
  function: { type: 'string' },
  handler: { type: 'string' },
  'lambda-endpoint': { type: 'string' },
} as const;

export const INVOKER_HELP = `What the records run through (one of them):
  --function NAME  the deployed function (name or ARN), through Lambda's Invoke API: it runs with its own
                   role and environment; you need lambda:InvokeFunction on it, and
                   lambda:GetFunctionConfiguration (its DEDUP_* settings judge the outcomes)
  --stack NAME     the function of the stack's FunctionName output (a --function flag wins)
  --handler FILE   a module exporting the Lambda handler (\`handler\`), run in this process with the
                   function's environment: CONSUMER_NAME, INBOX_TABLE_NAME (for --endpoint
                   AWS_ENDPOINT_URL_DYNAMODB), the POSTGRES_* of --postgres or the REDIS_* of
                   --redis; the consumer's other variables come from your shell
  --lambda-endpoint URL
                   the local runtime's Invoke API, e.g. the one \`npm start -- --keep\` prints, signed
                   as --endpoint is; the SDK's own AWS_ENDPOINT_URL_LAMBDA works too`;

/**
 * The flags both replaying commands take (quarantine replay, failed-batches replay): what to invoke, which
 * records (ids or --all), a dry run, and the override of the dedup window, whose help is PAST_WINDOW_HELP.
 */
export const REPLAY_FLAGS = {
  ...INVOKER_FLAGS,
  all: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'past-dedup-window': { type: 'boolean' },
} as const;

/** The flag that sends records older than the dedup window (docs/operate.md#replay). */
export const PAST_WINDOW_HELP = `  --past-dedup-window
                   send records older than the consumer's dedup window (DEDUP_TTL_SECONDS) too: their
                   dedup rows may have expired, so a record applied before may be APPLIED TWICE (a
                   second charge); check the effect's own records first`;

type Values = Readonly<Record<string, string | boolean | undefined>>;

/** Whether the flags (or the stack) name something to invoke; a dry run needs nothing. */
function invokerGiven(values: Values, target: OperatorTarget): boolean {
  return (
    stringFlag(values.handler) !== undefined ||
    stringFlag(values.function) !== undefined ||
    target.stack?.functionName !== undefined
  );
}

/**
 * What a replay invokes. A dry run needs nothing to invoke; given one, it still checks it (Lambda's
 * DryRun, the handler's import).
 */
export async function replayInvoker(
  values: Values,
  target: OperatorTarget,
  dryRun: boolean,
): Promise<Invoke> {
  if (dryRun && !invokerGiven(values, target)) {
    return async () => {
      throw new Error('a dry run invokes nothing');
    };
  }
  return invokerFrom(values, target);
}

/** The invoker the flags choose; a missing or contradictory choice is a one-line UserError. */
async function invokerFrom(values: Values, target: OperatorTarget): Promise<Invoke> {
  const handler = stringFlag(values.handler);
  const functionFlag = stringFlag(values.function);
  const lambdaEndpoint = stringFlag(values['lambda-endpoint']);
  if (handler !== undefined && functionFlag !== undefined) {
    throw new UserError('--handler or --function, not both: one thing runs the records');
  }
  endpointFlag('lambda-endpoint', lambdaEndpoint, 'http://127.0.0.1:9001');
  if (handler !== undefined) {
    if (lambdaEndpoint !== undefined) {
      throw new UserError('--lambda-endpoint goes with --function (or --stack), not --handler');
    }
    return loadLocalHandler(handler, target);
  }
  const functionName = functionFlag ?? target.stack?.functionName;
  if (functionName === undefined) {
    throw new UserError(
      target.stack === undefined
        ? 'what should run the records? pass --function NAME (the deployed function), --stack NAME or --handler FILE'
        : `stack ${target.stack.stackName} has no FunctionName output: pass --function NAME or --handler FILE`,
    );
  }
  // The --region flag, not the target's: that one may be --endpoint's local fallback, and the function is
  // not there unless --lambda-endpoint says so (lambdaInvoker then falls back on its own).
  return lambdaInvoker({
    functionName,
    region: stringFlag(values.region),
    profile: target.profile,
    lambdaEndpoint,
  });
}

/**
 * The consumer's dedup settings a replay judges by, resolved once per command: through `--function` or
 * `--stack`, the function's own environment (one GetFunctionConfiguration), since its DEDUP_* variables
 * need not be in this shell; otherwise (`--handler`, which runs with this shell's environment, or nothing
 * to invoke) this process's environment. Either way unset variables are the handler's defaults.
 */
export async function consumerSettingsFor(values: Values, target: OperatorTarget): Promise<ConsumerSettings> {
  const functionName =
    stringFlag(values.handler) === undefined
      ? (stringFlag(values.function) ?? target.stack?.functionName)
      : undefined;
  if (functionName === undefined) return shellSettings();
  const environment = await functionEnvironment({
    functionName,
    region: stringFlag(values.region),
    profile: target.profile,
    lambdaEndpoint: endpointFlag(
      'lambda-endpoint',
      stringFlag(values['lambda-endpoint']),
      'http://127.0.0.1:9001',
    ),
  });
  sameConsumer(functionName, environment, target);
  return consumerSettingsOf(environment, `function ${functionName}'s configuration`);
}

/**
 * A function that is another consumer's (or writes another table) would ack our records under its own
 * rows, and ours would be marked RESOLVED with nothing applied: refused before anything is sent. Only the
 * variables the function has are compared (the handler reads them, docs/operate.md#replay).
 */
function sameConsumer(
  functionName: string,
  environment: Readonly<Record<string, string | undefined>>,
  target: OperatorTarget,
): void {
  const ours = target.inbox.consumerEnvironment();
  const checks = [
    ['CONSUMER_NAME', environment.CONSUMER_NAME, '--consumer', target.consumer] as const,
    ...Object.entries(ours.flags).map(
      ([variable, flag]) => [variable, environment[variable], flag, ours.variables[variable] ?? ''] as const,
    ),
  ];
  for (const [variable, theirs, flag, ours] of checks) {
    if (theirs !== undefined && theirs !== ours) {
      throw new UserError(
        `function ${functionName} has ${variable}=${theirs}, not ${ours} (${flag}): it would ack these records under its own rows; pass the function of consumer ${target.consumer}`,
      );
    }
  }
}
