// MinIO users with restricted policies, for permission tests (e.g. a bulk-export destination
// whose credentials may only write). Wraps the small Go tool in infra/minio-admin/, built
// into .local/bin/minio-admin by `infra up` or on first use.
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { loadConfig } from '../platform/config.ts';
import { capture, progress, runLogged, seconds, withProgressTicks } from './commands.ts';
import { binDir, endpointsFromEnv, logsDir, repoRoot } from './config.ts';
import type { StackEndpoints } from './config.ts';
import { goBuildEnv, goBuildFlags } from './minio.ts';
import { inputsHash, stampMatches, writeStamp } from './stamps.ts';
import { ensureCommands } from './toolchain.ts';

export const minioAdminBinary = join(binDir, 'minio-admin');
const sourceDir = join(repoRoot, 'infra', 'minio-admin');
const stampFile = `${minioAdminBinary}.sha256`;

let building: Promise<void> | undefined;

/** Builds the admin tool unless the binary was built from the current sources (once per process). */
export function buildMinioAdmin(): Promise<void> {
  building ??= buildUnlessCurrent();
  building.catch(() => {
    building = undefined; // let a later call retry
  });
  return building;
}

async function buildUnlessCurrent(): Promise<void> {
  const hash = inputsHash(
    ['main.go', 'go.mod', 'go.sum'].map((file) => join(sourceDir, file)),
    goBuildFlags,
  );
  if (stampMatches(stampFile, hash)) return;
  await ensureCommands([{ command: 'go', hint: 'install Go >= 1.24 and put it on PATH' }]);
  const started = Date.now();
  progress('minio: building the admin tool (infra/minio-admin)');
  const log = join(logsDir, 'install-minio-admin.log');
  // Niced as MinIO's build is (infra/minio.ts).
  const build = runLogged(log, 'nice', ['-n', '10', 'go', 'build', ...goBuildFlags, '-o', minioAdminBinary, '.'], {
    cwd: sourceDir,
    env: goBuildEnv,
  });
  await withProgressTicks(build, (elapsed) => `minio: still building the admin tool (${elapsed} so far; log: ${log})`);
  writeStamp(stampFile, hash);
  progress(`minio: admin tool built in ${seconds(started)}`);
}

/** Runs one minio-admin command as the MinIO root user; throws with its message on failure. */
export async function runMinioAdmin(
  args: string[],
  options: { input?: string; endpoints?: StackEndpoints } = {},
): Promise<string> {
  await buildMinioAdmin();
  const endpoints = options.endpoints ?? endpointsFromEnv();
  const result = await capture(minioAdminBinary, args, {
    input: options.input,
    env: {
      MINIO_ADMIN_ENDPOINT: endpoints.s3Endpoint,
      MINIO_ADMIN_ACCESS_KEY: endpoints.s3AccessKeyId,
      MINIO_ADMIN_SECRET_KEY: endpoints.s3SecretAccessKey,
    },
  });
  if (result.code !== 0)
    throw new Error(`minio-admin ${args[0]} failed: ${result.stderr.trim() || `exit ${result.code}`}`);
  return result.stdout;
}

/** The canned policy created for one user; MinIO policy names allow letters, digits and - _ . */
export function policyNameFor(accessKey: string): string {
  return `user-${accessKey.replace(/[^A-Za-z0-9._-]/g, '_')}`;
}

/**
 * Creates (or updates) a MinIO user whose only permissions are `policy`, an IAM policy
 * document (object or JSON text), e.g. s3:PutObject on one bucket's objects.
 */
export async function createUserWithPolicy(
  accessKey: string,
  secretKey: string,
  policy: string | object,
  endpoints?: StackEndpoints,
): Promise<void> {
  const policyName = policyNameFor(accessKey);
  const document = typeof policy === 'string' ? policy : JSON.stringify(policy);
  const options = endpoints ? { endpoints } : {};
  await runMinioAdmin(['add-user', accessKey, secretKey], options);
  await runMinioAdmin(['add-policy', policyName, '-'], { ...options, input: document });
  await runMinioAdmin(['attach-policy', policyName, accessKey], options).catch((error: unknown) => {
    // Attaching a policy the user already has is an error in MinIO; it is the state we want.
    if (!String(error).includes('already')) throw error;
  });
}

/** Removes a user made by createUserWithPolicy, and its policy. */
export async function removeUser(accessKey: string, endpoints?: StackEndpoints): Promise<void> {
  const options = endpoints ? { endpoints } : {};
  await runMinioAdmin(['remove-user', accessKey], options);
  await runMinioAdmin(['remove-policy', policyNameFor(accessKey)], options).catch(() => undefined);
}

/**
 * The user the control plane signs source-upload URLs with (S3_UPLOAD_ACCESS_KEY_ID and
 * S3_UPLOAD_SECRET_ACCESS_KEY, their defaults unless set): it may only put objects under
 * `<S3_PAYLOAD_BUCKET>/*\/deployment-sources/`. Made in the stack's MinIO when it is not there yet
 * (an S3 request with its key says whether MinIO knows it).
 */
export async function ensureUploadsUser(
  endpoints: StackEndpoints,
  env: Record<string, string | undefined> = process.env,
): Promise<void> {
  const config = loadConfig({ ...env, S3_ENDPOINT: endpoints.s3Endpoint });
  const probe = new S3Client({
    endpoint: endpoints.s3Endpoint,
    region: config.S3_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: config.S3_UPLOAD_ACCESS_KEY_ID, secretAccessKey: config.S3_UPLOAD_SECRET_ACCESS_KEY },
  });
  try {
    await probe.send(
      new GetObjectCommand({ Bucket: config.S3_PAYLOAD_BUCKET, Key: 'probe/deployment-sources/uploads-user' }),
    );
    return;
  } catch (err) {
    // Known (refused, or no such object or bucket): nothing to do. Unknown key or wrong secret: made below.
    if (!/InvalidAccessKeyId|SignatureDoesNotMatch/.test((err as Error).name)) return;
  } finally {
    probe.destroy();
  }
  const bucket = config.S3_PAYLOAD_BUCKET;
  await createUserWithPolicy(
    config.S3_UPLOAD_ACCESS_KEY_ID,
    config.S3_UPLOAD_SECRET_ACCESS_KEY,
    {
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Action: ['s3:PutObject'], Resource: [`arn:aws:s3:::${bucket}/*/deployment-sources/*`] },
      ],
    },
    endpoints,
  );
}
