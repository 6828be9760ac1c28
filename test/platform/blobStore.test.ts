// The object store on the real MinIO: a presigned PUT URL takes an upload sent the way the
// official `langgraph deploy` CLIs send their source tarball (Content-Type application/gzip,
// Content-Length, GCS's X-Goog-Content-Length-Range), is good for its own key only, and
// downloadToFile gives back the bytes, `missing` for an object never uploaded and `too_large`
// (writing nothing) above its limit.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BlobStore } from '../../platform/blobStore.ts';
import { loadConfig } from '../../platform/config.ts';
import { provideInfra } from '../support/infra.ts';

let store: BlobStore;
const scratch = mkdtempSync(join(tmpdir(), 'blob-store-test-'));
// Upload URLs are signed by a user that may put under `<workspace>/deployment-sources/` only.
const prefix = `blob-store-test-${randomUUID()}/deployment-sources`;

beforeAll(async () => {
  const infra = await provideInfra();
  store = new BlobStore(
    loadConfig({
      S3_ENDPOINT: infra.s3Endpoint,
      S3_ACCESS_KEY_ID: infra.s3AccessKeyId,
      S3_SECRET_ACCESS_KEY: infra.s3SecretAccessKey,
    }),
  );
  await store.ensureBucket();
});

afterAll(() => {
  store?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A PUT as langgraph-cli's deploy.py and @langchain/langgraph-cli's deploy.mts send it. */
const putLikeTheCli = (url: string, body: Uint8Array) =>
  fetch(url, {
    method: 'PUT',
    headers: {
      'Content-Type': 'application/gzip',
      'Content-Length': String(body.byteLength),
      'X-Goog-Content-Length-Range': '0,209715200',
    },
    body,
  });

describe('presigned uploads', () => {
  test('the CLIs’ PUT is taken, and downloadToFile gives the bytes back', async () => {
    const key = `${prefix}/source.tar.gz`;
    const body = randomBytes(64 * 1024);
    const put = await putLikeTheCli(await store.presignedPutUrl(key, 60), body);
    expect(put.status, await put.text()).toBe(200);
    const file = join(scratch, 'downloaded.tar.gz');
    expect(await store.downloadToFile(key, file, { maxBytes: body.byteLength })).toEqual({
      status: 'written',
      bytes: body.byteLength,
    });
    expect(readFileSync(file).equals(body)).toBe(true);
  });

  test('a URL is good for its own key only: another key in it breaks the signature', async () => {
    const url = new URL(await store.presignedPutUrl(`${prefix}/mine.tar.gz`, 60));
    url.pathname = url.pathname.replace('mine.tar.gz', 'theirs.tar.gz');
    const put = await putLikeTheCli(url.href, randomBytes(16));
    expect(put.status).toBe(403);
    expect(await store.downloadToFile(`${prefix}/theirs.tar.gz`, join(scratch, 'theirs'), { maxBytes: 1024 })).toEqual({
      status: 'missing',
    });
  });

  test('an upload URL puts under deployment-sources/ only: the uploads user may put nowhere else', async () => {
    const key = `${prefix.replace('/deployment-sources', '')}/elsewhere/source.tar.gz`;
    const put = await putLikeTheCli(await store.presignedPutUrl(key, 60), randomBytes(16));
    expect(put.status).toBe(403);
    expect(await store.downloadToFile(key, join(scratch, 'elsewhere'), { maxBytes: 1024 })).toEqual({
      status: 'missing',
    });
  });

  test('an object never uploaded is missing; one over the limit is too_large and nothing is written', async () => {
    expect(await store.downloadToFile(`${prefix}/never.tar.gz`, join(scratch, 'never'), { maxBytes: 1024 })).toEqual({
      status: 'missing',
    });
    expect(existsSync(join(scratch, 'never'))).toBe(false);
    const key = `${prefix}/big.tar.gz`;
    expect((await putLikeTheCli(await store.presignedPutUrl(key, 60), randomBytes(2048))).status).toBe(200);
    const file = join(scratch, 'big');
    expect(await store.downloadToFile(key, file, { maxBytes: 1024 })).toEqual({ status: 'too_large', bytes: 2048 });
    expect(existsSync(file)).toBe(false);
  });
});
