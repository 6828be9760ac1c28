// Object storage for claim-checked payloads and attachments (S3 API; MinIO locally), and for the
// source tarballs clients upload to the control plane through presigned PUT URLs.
// Payload keys are content-addressed, so writing the same payload twice is harmless.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  S3Client,
  PutObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  CreateBucketCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from './config.ts';
import type { BlobRef } from '../schemas/events.generated.ts';
import { errors } from './errors.ts';

/** What downloadToFile did. */
export type BlobDownload =
  | { status: 'written'; bytes: number }
  | { status: 'missing' }
  | { status: 'too_large'; bytes: number };

export class BlobStore {
  readonly bucket: string;
  /** Where the store is expected (S3_ENDPOINT), for messages. */
  readonly endpoint: string;
  readonly #s3: S3Client;
  /**
   * Signs upload URLs: with the upload user's credentials (S3_UPLOAD_*), whose access-key id each
   * URL shows, never the main ones; and without a checksum of the (empty) body the signer sees,
   * which S3 would hold the uploaded tarball to.
   */
  readonly #signer: S3Client;
  /** Signs download URLs, at the endpoint clients reach (S3_PUBLIC_ENDPOINT). */
  readonly #downloadSigner: S3Client;

  constructor(config: S3Config) {
    this.bucket = config.S3_PAYLOAD_BUCKET;
    this.endpoint = config.S3_ENDPOINT;
    const client = (accessKeyId: string, secretAccessKey: string, signer: boolean) =>
      new S3Client({
        // A signature covers the host: URLs handed to clients are signed for the address they reach.
        endpoint: signer ? (config.S3_PUBLIC_ENDPOINT ?? config.S3_ENDPOINT) : config.S3_ENDPOINT,
        region: config.S3_REGION,
        forcePathStyle: true,
        credentials: { accessKeyId, secretAccessKey },
        ...(signer ? { requestChecksumCalculation: 'WHEN_REQUIRED' as const } : {}),
      });
    this.#s3 = client(config.S3_ACCESS_KEY_ID, config.S3_SECRET_ACCESS_KEY, false);
    this.#downloadSigner = config.S3_PUBLIC_ENDPOINT
      ? client(config.S3_ACCESS_KEY_ID, config.S3_SECRET_ACCESS_KEY, true)
      : this.#s3;
    const uploads =
      config.S3_UPLOAD_ACCESS_KEY_ID && config.S3_UPLOAD_SECRET_ACCESS_KEY
        ? ([config.S3_UPLOAD_ACCESS_KEY_ID, config.S3_UPLOAD_SECRET_ACCESS_KEY] as const)
        : null;
    this.#signer = uploads
      ? client(uploads[0], uploads[1], true)
      : client(config.S3_ACCESS_KEY_ID, config.S3_SECRET_ACCESS_KEY, true);
  }

  async ensureBucket(): Promise<void> {
    try {
      await this.#s3.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch {
      try {
        await this.#s3.send(new CreateBucketCommand({ Bucket: this.bucket }));
      } catch (err) {
        if (!/BucketAlreadyOwnedByYou|BucketAlreadyExists/.test((err as Error).name)) throw err;
      }
    }
  }

  /** Stores bytes under <tenant>/<kind>/<sha256> and returns the pointer for the event. */
  async put(tenantId: string, kind: string, body: Uint8Array, contentType: string): Promise<BlobRef> {
    const digest = createHash('sha256').update(body).digest('hex');
    const key = `${tenantId}/${kind}/${digest}`;
    try {
      await this.#s3.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }),
      );
    } catch (err) {
      throw errors.storageUnavailable('object storage', (err as Error).message, err);
    }
    return { bucket: this.bucket, key, size: body.byteLength, content_type: contentType };
  }

  /** Stores `body` at `key` of this bucket, replacing what was there (the control plane's revision logs). */
  async putObject(key: string, body: string, contentType: string): Promise<void> {
    try {
      await this.#s3.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }),
      );
    } catch (err) {
      throw errors.storageUnavailable('object storage', (err as Error).message, err);
    }
  }

  /** The text at `key` of this bucket; null when there is no such object. */
  async getObjectText(key: string): Promise<string | null> {
    try {
      const res = await this.#s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return await res.Body!.transformToString('utf8');
    } catch (err) {
      if (/^(NoSuchKey|NoSuchBucket|NotFound)$/.test((err as Error).name)) return null;
      throw errors.storageUnavailable('object storage', (err as Error).message, err);
    }
  }

  async getText(ref: BlobRef): Promise<string> {
    const res = await this.#s3.send(new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }));
    return await res.Body!.transformToString('utf8');
  }

  /** The object's bytes as a stream (for answering a download without holding it in memory). */
  async read(ref: BlobRef): Promise<Readable> {
    try {
      const res = await this.#s3.send(new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }));
      return res.Body as Readable;
    } catch (err) {
      throw errors.storageUnavailable('object storage', (err as Error).message, err);
    }
  }

  presignedUrl(ref: BlobRef, expiresInSeconds = 3600): Promise<string> {
    return getSignedUrl(this.#downloadSigner, new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }), {
      expiresIn: expiresInSeconds,
    });
  }

  /**
   * A URL that lets whoever holds it PUT one object at `key` of this bucket until it expires,
   * without credentials; signed by the upload user (S3_UPLOAD_*), whose only right is that PUT.
   * Content-Type is not signed (the presigner leaves it out), so a client may send its own, as the
   * LangGraph CLIs do (application/gzip).
   */
  presignedPutUrl(key: string, expiresInSeconds: number): Promise<string> {
    return getSignedUrl(this.#signer, new PutObjectCommand({ Bucket: this.bucket, Key: key }), {
      expiresIn: expiresInSeconds,
    });
  }

  /**
   * Writes the object at `key` of this bucket to `file`: `missing` when there is no such object
   * (or bucket), `too_large` (nothing written) when it is larger than `maxBytes`. Other failures
   * (the store down, a broken transfer) reject.
   */
  async downloadToFile(
    key: string,
    file: string,
    options: { maxBytes: number; signal?: AbortSignal },
  ): Promise<BlobDownload> {
    let res;
    try {
      res = await this.#s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
        abortSignal: options.signal,
      });
    } catch (err) {
      if (/^(NoSuchKey|NoSuchBucket|NotFound)$/.test((err as Error).name)) return { status: 'missing' };
      throw err;
    }
    const body = res.Body as Readable;
    const bytes = res.ContentLength ?? 0;
    if (bytes > options.maxBytes) {
      body.destroy();
      return { status: 'too_large', bytes };
    }
    await pipeline(body, createWriteStream(file), { signal: options.signal });
    return { status: 'written', bytes };
  }

  close(): void {
    this.#s3.destroy();
    this.#signer.destroy();
  }
}
