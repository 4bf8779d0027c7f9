/**
 * The credential chain a Lambda function uses, to stand in for the SDK's default Node.js chain in the
 * bundle. That chain also carries SSO, INI profiles, credential processes, web identity and instance
 * metadata, with the STS, SSO and sign-in clients they need: a third of the deployed bundle, none of it
 * reachable in Lambda. Lambda gives the execution role's credentials in the environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN); where it serves them from a container
 * endpoint instead (AWS_CONTAINER_CREDENTIALS_FULL_URI, e.g. SnapStart), the HTTP provider reads them.
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime
 *
 * It takes effect when the bundle aliases `@aws-sdk/credential-provider-node` to this file; the SDK then
 * calls `defaultProvider` exactly as it calls the original, and caches and refreshes what it returns.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { fromHttp } from '@aws-sdk/credential-provider-http';

type ProviderInit = NonNullable<Parameters<typeof fromEnv>[0]> & NonNullable<Parameters<typeof fromHttp>[0]>;
type CredentialProvider = ReturnType<typeof fromEnv>;

const CONTAINER_VARIABLES = ['AWS_CONTAINER_CREDENTIALS_FULL_URI', 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI'];

/** Same name and signature as `@aws-sdk/credential-provider-node`'s export, which it replaces. */
export function defaultProvider(init: ProviderInit = {}): CredentialProvider {
  const fromEnvironment = fromEnv(init);
  return async (properties) => {
    try {
      return await fromEnvironment(properties);
    } catch (environmentError) {
      // Read like the SDK's own providers do: the variables are the runtime's, not this function's config.
      if (!CONTAINER_VARIABLES.some((name) => process.env[name])) {
        throw new Error(
          `No AWS credentials: neither AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY nor ${CONTAINER_VARIABLES.join(' or ')} is set`,
          { cause: environmentError },
        );
      }
      return fromHttp(init)(properties);
    }
  };
}
