// Helpers for the bulk-export tests on the shared stack: buckets in the stack's MinIO, the
// body of a destination for them, and waiting for an export or its runs to reach a state.
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { inject, vi } from 'vitest';
import { api } from './tracingClient.ts';

/** A client with the MinIO root user (close with .destroy()). */
export function rootS3(): S3Client {
  const env = inject('tracingEnv');
  return new S3Client({
    endpoint: env.S3_ENDPOINT,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: env.S3_ACCESS_KEY_ID!, secretAccessKey: env.S3_SECRET_ACCESS_KEY! },
  });
}

export async function createBucket(bucket: string): Promise<void> {
  const s3 = rootS3();
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    s3.destroy();
  }
}

/** Every object key under `prefix` in `bucket` (through `client`, else the shared stack's MinIO as root). */
export async function listKeys(bucket: string, prefix = '', client?: S3Client): Promise<string[]> {
  const s3 = client ?? rootS3();
  const keys: string[] = [];
  try {
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) keys.push(o.Key!);
      token = page.NextContinuationToken;
    } while (token);
  } finally {
    if (!client) s3.destroy();
  }
  return keys.sort();
}

/** POST /bulk-exports/destinations body for a bucket of the stack's MinIO (root credentials unless given). */
export function destinationBody(
  bucket: string,
  prefix = 'exports',
  credentials?: { access_key_id: string; secret_access_key: string },
): Record<string, unknown> {
  const env = inject('tracingEnv');
  return {
    destination_type: 's3',
    display_name: `lake ${bucket}`,
    config: { bucket_name: bucket, prefix, endpoint_url: env.S3_ENDPOINT },
    credentials: credentials ?? { access_key_id: env.S3_ACCESS_KEY_ID, secret_access_key: env.S3_SECRET_ACCESS_KEY },
  };
}

/** Polls GET /bulk-exports/{id} until `ready` holds for it; returns it. */
export async function waitForExport(
  apiKey: string,
  exportId: string,
  ready: (e: any) => boolean,
  timeoutMs = 90_000,
): Promise<any> {
  return vi.waitFor(
    async () => {
      const res = await api(`/bulk-exports/${exportId}`, { apiKey });
      if (!ready(res.body))
        throw new Error(`export ${exportId} not there yet: ${JSON.stringify(res.body).slice(0, 400)}`);
      return res.body;
    },
    { timeout: timeoutMs, interval: 250 },
  );
}

/** Polls GET /bulk-exports/{id}/runs until `ready` holds for the list; returns it. */
export async function waitForExportRuns(
  apiKey: string,
  exportId: string,
  ready: (runs: any[]) => boolean,
  timeoutMs = 90_000,
): Promise<any[]> {
  return vi.waitFor(
    async () => {
      const res = await api(`/bulk-exports/${exportId}/runs`, { apiKey });
      if (!Array.isArray(res.body) || !ready(res.body))
        throw new Error(`runs of export ${exportId} not there yet: ${JSON.stringify(res.body).slice(0, 600)}`);
      return res.body;
    },
    { timeout: timeoutMs, interval: 250 },
  );
}
