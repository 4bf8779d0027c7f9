/**
 * The mapping's on-failure bucket: one object per failed batch, under
 * `aws/lambda/<ESM-UUID>/<topic-partition>/YYYY/MM/DD/...` (https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html).
 * Listing needs s3:ListBucket on the bucket, reading s3:GetObject on its objects; S3's refusals become one
 * line naming the action (docs/operate.md#iam-actions).
 */
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { credentialAdvice } from '../aws-errors.js';
import { UserError } from '../cli/user-error.js';
import { type LocalFallback, withLocalFallback } from '../local-fallback.js';
import type { OperatorTarget } from '../operator-target.js';
import type { BatchObject, FailedBatchSource } from './batch-source.js';

export interface S3SourceOptions {
  readonly bucket: string;
  readonly prefix: string;
  /** `--s3-endpoint`: an S3-compatible endpoint, addressed path-style (the SDK's AWS_ENDPOINT_URL_S3 works too). */
  readonly endpoint: string | undefined;
  /** Keys per ListObjectsV2 page (S3's maximum and default: 1,000). */
  readonly pageSize?: number;
}

export class S3BatchSource implements FailedBatchSource {
  readonly #options: S3SourceOptions;
  readonly #target: OperatorTarget;
  readonly #client: Promise<S3Client>;

  constructor(options: S3SourceOptions, target: OperatorTarget, env: NodeJS.ProcessEnv = process.env) {
    this.#options = options;
    this.#target = target;
    // Buckets are addressed by name in the path on a custom endpoint (no wildcard DNS on loopback).
    const forcePathStyle = options.endpoint !== undefined || Boolean(env.AWS_ENDPOINT_URL_S3);
    const make = (fallback: LocalFallback) =>
      new S3Client({
        maxAttempts: 3,
        forcePathStyle,
        followRegionRedirects: true,
        ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
        ...(target.region === undefined ? {} : { region: target.region }),
        ...(target.profile === undefined ? {} : { profile: target.profile }),
        ...fallback,
      });
    // At --s3-endpoint (e.g. the folder-bucket stand-in, which checks no signature) signed as --endpoint is.
    this.#client = withLocalFallback(make, options.endpoint, target.profile, env).then(
      ({ client }) => client,
    );
    // Asked for only when a command sends; a failure here is the send's (#advised), not an unhandled one.
    this.#client.catch(() => undefined);
  }

  describe(): string {
    return `s3://${this.#options.bucket}/${this.#options.prefix}`;
  }

  async list(): Promise<BatchObject[]> {
    const objects: BatchObject[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await this.#advised('s3:ListBucket', undefined, (client) =>
        client.send(
          new ListObjectsV2Command({
            Bucket: this.#options.bucket,
            Prefix: this.#options.prefix,
            ContinuationToken,
            ...(this.#options.pageSize === undefined ? {} : { MaxKeys: this.#options.pageSize }),
          }),
        ),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined || object.Key.endsWith('/')) continue;
        objects.push({
          key: object.Key,
          sizeBytes: object.Size ?? 0,
          lastModifiedMs: object.LastModified?.getTime() ?? 0,
        });
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return objects;
  }

  async read(key: string): Promise<string> {
    const object = await this.#advised('s3:GetObject', key, (client) =>
      client.send(new GetObjectCommand({ Bucket: this.#options.bucket, Key: key })),
    );
    return (await object.Body?.transformToString('utf8')) ?? '';
  }

  async #advised<T>(
    action: string,
    key: string | undefined,
    work: (client: S3Client) => Promise<T>,
  ): Promise<T> {
    try {
      return await work(await this.#client);
    } catch (error) {
      throw this.#advice(action, key, error) ?? error;
    }
  }

  #advice(action: string, key: string | undefined, error: unknown): UserError | undefined {
    const name = (error as { name?: string }).name ?? '';
    const { bucket } = this.#options;
    const where =
      this.#options.endpoint === undefined
        ? `in ${this.#target.region ?? 'the default region'}`
        : `at ${this.#options.endpoint}`;
    const options = { cause: error };
    if (name === 'NoSuchBucket') {
      return new UserError(
        `no bucket ${bucket} ${where}: check --bucket (and --region or --s3-endpoint)`,
        options,
      );
    }
    if (name === 'AccessDenied' || name === 'AccessDeniedException' || name === 'Forbidden') {
      const resource = action === 's3:ListBucket' ? `arn:aws:s3:::${bucket}` : `arn:aws:s3:::${bucket}/*`;
      return new UserError(
        `S3 denied ${action} on ${resource}: your role needs it (docs/operate.md lists the IAM actions)`,
        options,
      );
    }
    if (name === 'NoSuchKey' && key !== undefined) {
      return new UserError(`s3://${bucket}/${key} is gone (deleted meanwhile?): list again`, options);
    }
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
    if (this.#options.endpoint !== undefined && (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(message))) {
      return new UserError(`nothing answers at --s3-endpoint ${this.#options.endpoint}`, options);
    }
    return credentialAdvice(error);
  }
}
