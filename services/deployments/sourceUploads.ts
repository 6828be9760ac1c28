// Where clients upload the source tarballs of internal_source deployments: POST …/upload-url
// names a fresh object in the payload bucket (S3_PAYLOAD_BUCKET) and signs a PUT URL for it; a
// revision's source_revision_config.source_tarball_path names that object, and the deployment
// worker reads it from there when it builds the revision. The object path starts with the
// workspace's id, so a revision can name only its own workspace's uploads. Uploads are kept
// (a redeploy of an older revision builds its tarball again).
import { randomUUID } from 'node:crypto';

/** How long an upload URL can be used: the CLIs PUT at once; a person with curl has time too. */
export const UPLOAD_URL_EXPIRES_SECONDS = 3600;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const UPLOAD_PATH = new RegExp(`^(${UUID})/deployment-sources/${UUID}/${UUID}\\.tar\\.gz$`);

/** A new object path for one upload of a deployment's source: `<tenant>/deployment-sources/<deployment>/<upload>.tar.gz`. */
export function newUploadObjectPath(tenantId: string, deploymentId: string): string {
  return `${tenantId}/deployment-sources/${deploymentId}/${randomUUID()}.tar.gz`;
}

/** Why `path` cannot be a revision's source_tarball_path in this workspace, or null when it can. */
export function uploadPathProblem(tenantId: string, path: string): string | null {
  const match = UPLOAD_PATH.exec(path);
  if (match?.[1] === tenantId) return null;
  return (
    `source_revision_config.source_tarball_path "${path}" is not an upload of this workspace: ` +
    'give the object_path that POST /v2/deployments/{deployment_id}/upload-url returned'
  );
}
