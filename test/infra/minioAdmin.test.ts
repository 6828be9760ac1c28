// A user made by createUserWithPolicy has exactly its policy's rights, against the real MinIO; and
// so has the upload user the stack makes for the control plane's upload URLs.
import { randomUUID } from 'node:crypto';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { test, expect, beforeAll } from 'vitest';
import { createUserWithPolicy, removeUser } from '../../infra/minioAdmin.ts';
import { provideInfra } from '../support/infra.ts';
import { loadConfig } from '../../platform/config.ts';
import type { StackEndpoints } from '../support/infra.ts';

let endpoints: StackEndpoints;
const bucket = `minio-admin-test-${randomUUID().slice(0, 8)}`;

function s3(accessKeyId: string, secretAccessKey: string): S3Client {
  return new S3Client({
    endpoint: endpoints.s3Endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
}

async function errorName(attempt: Promise<unknown>): Promise<string> {
  try {
    await attempt;
    return 'no error';
  } catch (error) {
    return (error as Error).name;
  }
}

beforeAll(async () => {
  endpoints = await provideInfra();
  await s3(endpoints.s3AccessKeyId, endpoints.s3SecretAccessKey).send(new CreateBucketCommand({ Bucket: bucket }));
});

test('a write-only user can put objects but not read or delete them', async () => {
  const accessKey = `write-only-${randomUUID().slice(0, 8)}`;
  const secretKey = randomUUID();
  await createUserWithPolicy(
    accessKey,
    secretKey,
    {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: ['s3:PutObject'], Resource: [`arn:aws:s3:::${bucket}/*`] }],
    },
    endpoints,
  );
  try {
    const writer = s3(accessKey, secretKey);
    await writer.send(new PutObjectCommand({ Bucket: bucket, Key: 'export/part-0.parquet', Body: 'bytes' }));
    expect(await errorName(writer.send(new GetObjectCommand({ Bucket: bucket, Key: 'export/part-0.parquet' })))).toBe(
      'AccessDenied',
    );
    expect(
      await errorName(writer.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'export/part-0.parquet' }))),
    ).toBe('AccessDenied');
    const stored = await s3(endpoints.s3AccessKeyId, endpoints.s3SecretAccessKey).send(
      new GetObjectCommand({ Bucket: bucket, Key: 'export/part-0.parquet' }),
    );
    expect(await stored.Body?.transformToString()).toBe('bytes');
  } finally {
    await removeUser(accessKey, endpoints);
  }
  expect(
    await errorName(s3(accessKey, secretKey).send(new PutObjectCommand({ Bucket: bucket, Key: 'late', Body: 'x' }))),
  ).toBe('InvalidAccessKeyId');
});

test('a read-only user cannot write', async () => {
  const accessKey = `read-only-${randomUUID().slice(0, 8)}`;
  const secretKey = randomUUID();
  // Calling twice shows the create is idempotent (policy re-attached without error).
  for (let i = 0; i < 2; i++) {
    await createUserWithPolicy(
      accessKey,
      secretKey,
      JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: ['s3:GetObject', 's3:ListBucket'],
            Resource: [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`],
          },
        ],
      }),
      endpoints,
    );
  }
  try {
    expect(
      await errorName(
        s3(accessKey, secretKey).send(new PutObjectCommand({ Bucket: bucket, Key: 'denied', Body: 'x' })),
      ),
    ).toBe('AccessDenied');
  } finally {
    await removeUser(accessKey, endpoints);
  }
});

test("the stack's upload user (S3_UPLOAD_*) may put source tarballs and nothing else", async () => {
  const config = loadConfig({});
  const uploader = s3(config.S3_UPLOAD_ACCESS_KEY_ID, config.S3_UPLOAD_SECRET_ACCESS_KEY);
  const admin = s3(endpoints.s3AccessKeyId, endpoints.s3SecretAccessKey);
  const bucketOf = config.S3_PAYLOAD_BUCKET;
  await admin.send(new CreateBucketCommand({ Bucket: bucketOf })).catch(() => undefined);
  const tarball = `${randomUUID()}/deployment-sources/${randomUUID()}/${randomUUID()}.tar.gz`;
  await uploader.send(new PutObjectCommand({ Bucket: bucketOf, Key: tarball, Body: 'tarball' }));
  expect(await errorName(uploader.send(new GetObjectCommand({ Bucket: bucketOf, Key: tarball })))).toBe('AccessDenied');
  expect(await errorName(uploader.send(new DeleteObjectCommand({ Bucket: bucketOf, Key: tarball })))).toBe(
    'AccessDenied',
  );
  // Not a payload, not a log, not another bucket.
  for (const [b, key] of [
    [bucketOf, `${randomUUID()}/payloads/abc`],
    [bucketOf, `${randomUUID()}/deployment-logs/d/r/build.jsonl`],
    [bucket, `${randomUUID()}/deployment-sources/d/x.tar.gz`],
  ] as const)
    expect(await errorName(uploader.send(new PutObjectCommand({ Bucket: b, Key: key, Body: 'x' }))), key).toBe(
      'AccessDenied',
    );
  await admin.send(new DeleteObjectCommand({ Bucket: bucketOf, Key: tarball }));
});
