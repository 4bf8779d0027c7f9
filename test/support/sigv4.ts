/**
 * SigV4 computed here by hand from the published algorithm
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html), not through the signer:
 * what a presigned token's X-Amz-Signature must be, for the IAM token tests.
 */
import { createHash, createHmac } from 'node:crypto';

/**
 * The signature of a presigned GET on `/` with only `host` signed, from the URL's own query less its
 * signature and the keys in `unsigned` (added after signing, as MSK's User-Agent is).
 */
export function expectedPresignSignature(
  url: URL,
  secretAccessKey: string,
  unsigned: readonly string[] = [],
): string {
  const signed = [...url.searchParams.entries()].filter(
    ([key]) => key !== 'X-Amz-Signature' && !unsigned.includes(key),
  );
  const uriEscape = (text: string) =>
    encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonicalQuery = signed
    .map(([key, value]) => [uriEscape(key), uriEscape(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
  const emptyBodyHash = createHash('sha256').update('').digest('hex');
  const canonicalRequest = ['GET', '/', canonicalQuery, `host:${url.host}`, '', 'host', emptyBodyHash].join(
    '\n',
  );
  const amzDate = url.searchParams.get('X-Amz-Date') as string;
  const [, date, region, service] = (url.searchParams.get('X-Amz-Credential') as string).split(
    '/',
  ) as string[];
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    scope,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  let key = hmac(`AWS4${secretAccessKey}`, date as string);
  key = hmac(key, region as string);
  key = hmac(key, service as string);
  key = hmac(key, 'aws4_request');
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}
