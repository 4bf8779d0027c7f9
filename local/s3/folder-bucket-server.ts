/**
 * A stand-in for S3 on loopback: a folder served as one bucket, path-style, so the real S3 client
 * (`forcePathStyle` with a custom endpoint) reads the emulator's on-failure folder as it would the
 * mapping's on-failure bucket (docs/local.md#a-folder-as-an-s3-bucket). It answers the two calls a reader
 * of failed batches makes, with S3's XML shapes:
 *
 * - ListObjectsV2 (`GET /<bucket>?list-type=2`): prefix, continuation token, max-keys, keys in UTF-8
 *   binary order. https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html
 * - GetObject (`GET /<bucket>/<key>`). https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html
 * - Errors `NoSuchBucket`, `NoSuchKey` (404) and `AccessDenied` (403) in S3's error document.
 *   https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html
 *
 * Requests are not authenticated: any credentials do. `deny` makes it refuse an action, as a bucket
 * policy would, so the reader's advice for AccessDenied can be tested.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, sep } from 'node:path';

/** S3's ceiling for max-keys, and its default. */
const MAX_KEYS = 1000;

export type BucketAction = 's3:ListBucket' | 's3:GetObject';

export interface FolderBucketOptions {
  /** The folder whose files are the bucket's objects: the key is the path below it, with `/`. */
  readonly root: string;
  readonly bucket: string;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** Actions refused with AccessDenied. */
  readonly deny?: readonly BucketAction[];
  /**
   * Keys per ListObjectsV2 page at most, below the client's max-keys: S3 may return fewer than asked
   * ("some or all (up to 1,000)"), so a reader must follow continuation tokens. @default 1000
   */
  readonly pageSize?: number;
}

export interface FolderBucketServer {
  /** `http://127.0.0.1:<port>`: the client's endpoint, with `forcePathStyle`. */
  readonly endpoint: string;
  close(): Promise<void>;
}

export async function startFolderBucketServer(options: FolderBucketOptions): Promise<FolderBucketServer> {
  const server = createServer((request, response) => {
    serve(options, request, response).catch((error: unknown) => {
      sendError(response, 500, 'InternalError', error instanceof Error ? error.message : String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function serve(
  options: FolderBucketOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://bucket.invalid');
  const [, bucket = '', ...keyParts] = url.pathname.split('/');
  const key = keyParts.map(decodeURIComponent).join('/');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return sendError(response, 405, 'MethodNotAllowed', 'only reads are served here', { bucket });
  }
  if (decodeURIComponent(bucket) !== options.bucket) {
    return sendError(response, 404, 'NoSuchBucket', 'The specified bucket does not exist', { bucket });
  }
  if (key === '') {
    if (options.deny?.includes('s3:ListBucket'))
      return sendError(response, 403, 'AccessDenied', 'Access Denied');
    return listObjects(options, url.searchParams, response);
  }
  if (options.deny?.includes('s3:GetObject'))
    return sendError(response, 403, 'AccessDenied', 'Access Denied');
  return getObject(options, key, request.method === 'HEAD', response);
}

interface FolderObject {
  readonly key: string;
  readonly size: number;
  readonly lastModified: Date;
}

async function objectsOf(root: string): Promise<FolderObject[]> {
  let names: string[];
  try {
    names = await readdir(root, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const objects: FolderObject[] = [];
  for (const name of names) {
    const info = await stat(join(root, name));
    if (!info.isFile()) continue;
    objects.push({ key: name.split(sep).join('/'), size: info.size, lastModified: info.mtime });
  }
  // S3 lists keys in UTF-8 binary order.
  return objects.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
}

async function listObjects(
  options: FolderBucketOptions,
  query: URLSearchParams,
  response: ServerResponse,
): Promise<void> {
  if (query.get('list-type') !== '2') {
    return sendError(response, 400, 'InvalidRequest', 'only ListObjectsV2 (list-type=2) is served here');
  }
  const prefix = query.get('prefix') ?? '';
  const maxKeys = Math.min(MAX_KEYS, Number(query.get('max-keys') ?? MAX_KEYS));
  const pageSize = Math.min(maxKeys, options.pageSize ?? MAX_KEYS);
  const token = query.get('continuation-token');
  // The token is opaque to clients: here, the last key of the previous page.
  const after = token === null ? undefined : Buffer.from(token, 'base64url').toString('utf8');
  const startAfter = after ?? query.get('start-after') ?? '';
  const matching = (await objectsOf(options.root)).filter(
    (object) => object.key.startsWith(prefix) && object.key > startAfter,
  );
  const page = matching.slice(0, Math.max(0, pageSize));
  const truncated = matching.length > page.length;
  const encode = query.get('encoding-type') === 'url' ? encodeKey : (text: string) => text;
  const last = page.at(-1);
  const body = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
    element('Name', options.bucket),
    element('Prefix', encode(prefix)),
    element('KeyCount', String(page.length)),
    element('MaxKeys', String(maxKeys)),
    element('IsTruncated', String(truncated)),
    ...(token === null ? [] : [element('ContinuationToken', token)]),
    ...(truncated && last
      ? [element('NextContinuationToken', Buffer.from(last.key).toString('base64url'))]
      : []),
    ...(query.get('encoding-type') === 'url' ? [element('EncodingType', 'url')] : []),
    ...page.map(
      (object) =>
        `<Contents>${element('Key', encode(object.key))}${element('LastModified', object.lastModified.toISOString())}${element('ETag', etagOf(object))}${element('Size', String(object.size))}${element('StorageClass', 'STANDARD')}</Contents>`,
    ),
    '</ListBucketResult>',
  ].join('');
  send(response, 200, 'application/xml', body);
}

async function getObject(
  options: FolderBucketOptions,
  key: string,
  headOnly: boolean,
  response: ServerResponse,
): Promise<void> {
  const object = (await objectsOf(options.root)).find((candidate) => candidate.key === key);
  if (object === undefined) {
    return sendError(response, 404, 'NoSuchKey', 'The specified key does not exist.', { key });
  }
  const bytes = await readFile(join(options.root, ...key.split('/')));
  response.writeHead(200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': bytes.length,
    ETag: etagOf(object),
    'Last-Modified': object.lastModified.toUTCString(),
    'x-amz-request-id': requestId(),
  });
  response.end(headOnly ? undefined : bytes);
}

function etagOf(object: FolderObject): string {
  return `"${createHash('md5').update(`${object.key}:${object.size}:${object.lastModified.getTime()}`).digest('hex')}"`;
}

function sendError(
  response: ServerResponse,
  status: number,
  code: string,
  message: string,
  extra: { readonly bucket?: string; readonly key?: string } = {},
): void {
  const body = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<Error>',
    element('Code', code),
    element('Message', message),
    ...(extra.bucket === undefined ? [] : [element('BucketName', extra.bucket)]),
    ...(extra.key === undefined ? [] : [element('Key', extra.key)]),
    element('RequestId', requestId()),
    element('HostId', 'folder-bucket'),
    '</Error>',
  ].join('');
  send(response, status, 'application/xml', body);
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'x-amz-request-id': requestId(),
  });
  response.end(body);
}

function requestId(): string {
  return randomUUID().replaceAll('-', '').slice(0, 16).toUpperCase();
}

function element(name: string, text: string): string {
  return `<${name}>${escapeXml(text)}</${name}>`;
}

function escapeXml(text: string): string {
  return text.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c,
  );
}

/** `encoding-type=url`: each key URL-encoded, `/` kept, as S3 does. */
function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}
