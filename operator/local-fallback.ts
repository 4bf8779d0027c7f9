/**
 * Whom the tool signs as when a flag points a client at an endpoint (`--endpoint`, `--lambda-endpoint`,
 * `--s3-endpoint`): the caller, as the SDK's own conventions say and as every AWS tool does, credentials
 * from the default chain (`--profile`/AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, the shared
 * files, SSO, a container or instance role) and the region from `--region`, AWS_REGION or the profile.
 * That matters at an endpoint too: DynamoDB Local keeps tables per access key id and region (unless it runs
 * with -sharedDb), and an AWS-compatible endpoint has accounts of its own, so a table made under the
 * caller's key is found only under it. Only what is not configured at all falls back: the fixed local pair
 * and us-east-1, what `npm start` makes its tables under, so a shell with no AWS setup reaches the demo.
 */

/** The fixed pair `npm start` and the local tools sign with (local/dynamodb-local/client.ts re-exports it). */
export const LOCAL_ENDPOINT_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
export const LOCAL_ENDPOINT_REGION = 'us-east-1';

/** What a client resolved from its own defaults (its `config`), made with only the flags' region and profile. */
export interface SdkDefaults {
  credentials(): Promise<unknown>;
  region(): Promise<string>;
}

/** What a client at an endpoint takes instead of its defaults: only the parts nothing configures. */
export interface LocalFallback {
  readonly credentials?: typeof LOCAL_ENDPOINT_CREDENTIALS;
  readonly region?: string;
}

/**
 * Asks the SDK's own chains once (`sdk`: a client's config); what they find is left to the client, what
 * they do not find is the local pair or region. A named profile (`--profile`, AWS_PROFILE) is configuration
 * even when it resolves to nothing: its error reaches the caller, who asked for it, instead of the local
 * pair. Any other failure of the chain also stays the client's, to be reported when it sends.
 */
export async function localFallback(
  sdk: SdkDefaults,
  profile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LocalFallback> {
  const profileNamed = profile !== undefined || Boolean(env.AWS_PROFILE);
  const [credentials, region] = await Promise.all([
    sdk.credentials().then(
      () => undefined,
      (error: unknown) =>
        !profileNamed && noCredentialsAnywhere(error) ? LOCAL_ENDPOINT_CREDENTIALS : undefined,
    ),
    sdk.region().then(
      () => undefined,
      (error: unknown) => (noRegionAnywhere(error) ? LOCAL_ENDPOINT_REGION : undefined),
    ),
  ]);
  return {
    ...(credentials === undefined ? {} : { credentials }),
    ...(region === undefined ? {} : { region }),
  };
}

/** The default chain's last link: every provider was tried and none had credentials. */
function noCredentialsAnywhere(error: unknown): boolean {
  return (
    (error as { name?: string }).name === 'CredentialsProviderError' &&
    /Could not load credentials from any providers/.test((error as Error).message)
  );
}

/** The region chain found neither --region, AWS_REGION nor a profile's region. */
function noRegionAnywhere(error: unknown): boolean {
  return error instanceof Error && /Region is missing/i.test(error.message);
}

/**
 * The client `make` makes, at `endpoint` (a flag's) with the fallback where its defaults have nothing;
 * without an endpoint, as the SDK makes it. `make({})` is asked first, and made again only when something
 * falls back.
 */
export async function withLocalFallback<C extends { readonly config: SdkDefaults }>(
  make: (fallback: LocalFallback) => C,
  endpoint: string | undefined,
  profile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ client: C; fallback: LocalFallback }> {
  const client = make({});
  if (endpoint === undefined) return { client, fallback: {} };
  const fallback = await localFallback(client.config, profile, env);
  return { client: Object.keys(fallback).length === 0 ? client : make(fallback), fallback };
}
