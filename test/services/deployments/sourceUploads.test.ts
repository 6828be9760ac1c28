// The object paths of internal_source uploads: a path upload-url makes is accepted as a revision's
// source_tarball_path in its own workspace only, and nothing but that shape is.
import { randomUUID } from 'node:crypto';
import { expect, test } from 'vitest';
import { newUploadObjectPath, uploadPathProblem } from '../../../services/deployments/sourceUploads.ts';

const tenant = randomUUID();
const deployment = randomUUID();

test('a path upload-url makes is accepted in its workspace, and each upload gets its own', () => {
  const path = newUploadObjectPath(tenant, deployment);
  expect(path).toMatch(new RegExp(`^${tenant}/deployment-sources/${deployment}/[0-9a-f-]{36}\\.tar\\.gz$`));
  expect(uploadPathProblem(tenant, path)).toBeNull();
  expect(newUploadObjectPath(tenant, deployment)).not.toBe(path);
});

test('another workspace’s upload, or any other object, is refused with the way to get a good one', () => {
  const theirs = newUploadObjectPath(randomUUID(), deployment);
  expect(uploadPathProblem(tenant, theirs)).toContain('is not an upload of this workspace');
  expect(uploadPathProblem(tenant, theirs)).toContain('upload-url');
  const mine = newUploadObjectPath(tenant, deployment);
  for (const path of [
    `${tenant}/deployment-sources/${deployment}/../../${randomUUID()}/attachments/x`,
    `${tenant}/attachments/${'0'.repeat(64)}`,
    `/${mine}`,
    `${mine}/`,
    mine.replace('.tar.gz', '.zip'),
    mine.toUpperCase(),
    `s3://langsmith-payloads/${mine}`,
    '',
  ])
    expect(uploadPathProblem(tenant, path), path).not.toBeNull();
});
