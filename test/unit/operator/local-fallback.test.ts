/**
 * What falls back at an endpoint, decided on the SDK's own answers (faked here; the real chain is spawned in
 * test/e2e/operator-credentials.test.ts): only what nothing configures.
 */
import { describe, expect, it } from 'vitest';
import {
  LOCAL_ENDPOINT_CREDENTIALS,
  LOCAL_ENDPOINT_REGION,
  localFallback,
  type SdkDefaults,
} from '../../../operator/local-fallback.js';

/** The chain's last link, as @aws-sdk/credential-provider-node throws it. */
const nothingAnywhere = Object.assign(new Error('Could not load credentials from any providers'), {
  name: 'CredentialsProviderError',
});
const sdk = (credentials: Error | undefined, region: Error | undefined): SdkDefaults => ({
  credentials: async () => {
    if (credentials) throw credentials;
    return { accessKeyId: 'AKIDCALLER', secretAccessKey: 's' };
  },
  region: async () => {
    if (region) throw region;
    return 'eu-west-1';
  },
});

describe('localFallback', () => {
  it("leaves what the SDK finds to the SDK: the caller's key and region", async () => {
    expect(await localFallback(sdk(undefined, undefined), undefined, {})).toEqual({});
  });

  it('gives the local pair and region where nothing is configured', async () => {
    expect(await localFallback(sdk(nothingAnywhere, new Error('Region is missing')), undefined, {})).toEqual({
      credentials: LOCAL_ENDPOINT_CREDENTIALS,
      region: LOCAL_ENDPOINT_REGION,
    });
  });

  it('falls back for the part that is missing only', async () => {
    expect(await localFallback(sdk(undefined, new Error('Region is missing')), undefined, {})).toEqual({
      region: LOCAL_ENDPOINT_REGION,
    });
    expect(await localFallback(sdk(nothingAnywhere, undefined), undefined, {})).toEqual({
      credentials: LOCAL_ENDPOINT_CREDENTIALS,
    });
  });

  it('a named profile (--profile or AWS_PROFILE) is configuration: no local pair, its error is the caller’s', async () => {
    expect(await localFallback(sdk(nothingAnywhere, undefined), 'nope', {})).toEqual({});
    expect(await localFallback(sdk(nothingAnywhere, undefined), undefined, { AWS_PROFILE: 'nope' })).toEqual(
      {},
    );
  });

  it('another failure of the chain (an expired SSO token, say) stays the client’s to report', async () => {
    const expired = Object.assign(new Error('The SSO session token has expired'), {
      name: 'CredentialsProviderError',
    });
    expect(await localFallback(sdk(expired, undefined), undefined, {})).toEqual({});
  });
});
