// Object storage for claim-checked payloads and attachments (S3 API; MinIO locally).
// Keys are content-addressed, so writing the same payload twice is harmless.
import { createHash } from 'node:crypto';
import { S3Client, PutObjectCommand, GetObjectCommand, HeadBucketCommand, CreateBucketCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from './config.ts';
import type { BlobRef } from '../schemas/events.generated.ts';
import { errors } from './errors.ts';

export class BlobStore {
  readonly bucket: string;
  readonly #s3: S3Client;

  constructor(config: S3Config) {
    this.bucket = config.S3_PAYLOAD_BUCKET;
    this.#s3 = new S3Client({
      endpoint: config.S3_ENDPOINT,
      region: config.S3_REGION,
      forcePathStyle: true,
      credentials: { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY },
    });
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
      await this.#s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }));
    } catch (err) {
      throw errors.storageUnavailable('object storage', (err as Error).message, err);
    }
    return { bucket: this.bucket, key, size: body.byteLength, content_type: contentType };
  }

  async getText(ref: BlobRef): Promise<string> {
    const res = await this.#s3.send(new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }));
    return await res.Body!.transformToString('utf8');
  }

  presignedUrl(ref: BlobRef, expiresInSeconds = 3600): Promise<string> {
    return getSignedUrl(this.#s3, new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }), { expiresIn: expiresInSeconds });
  }

  close(): void {
    this.#s3.destroy();
  }
}
