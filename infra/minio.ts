// MinIO as the S3 of the local stack, built from its Go module into .local/bin/minio. Its
// root user is S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY, so the services' credentials can also
// administer users and policies (infra/minioAdmin.ts).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { capture, progress, runLogged, seconds, withProgressTicks } from './commands.ts';
import type { Component } from './component.ts';
import { binDir, extraPortsFromEnv, localDir, logsDir, urlHostPort } from './config.ts';
import type { ExtraPorts, StackEndpoints } from './config.ts';
import { logFilePath, startDetached } from './processes.ts';
import { ensureCommands } from './toolchain.ts';

// MinIO tags releases as RELEASE.<date>, which the Go module proxy does not serve as module
// versions; this pseudo-version (master of 2026-02-12) is the newest it serves.
export const minioModuleVersion = 'v0.0.0-20260212201848-7aac2a2c5b7c';
const minioModule = 'github.com/minio/minio';

export const minioBinary = join(binDir, 'minio');
const dataDir = join(localDir, 'minio', 'data');

/** Build settings shared with the admin tool: static binaries, no local paths in them. */
export const goBuildEnv = { CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false' };
export const goBuildFlags = ['-trimpath', '-ldflags=-s -w'];

const goHint = `install Go >= 1.24 (MinIO's go.mod requires it) and put it on PATH`;

export function minioComponent(endpoints: StackEndpoints, ports: ExtraPorts = extraPortsFromEnv()): Component {
  const { host, port } = urlHostPort(endpoints.s3Endpoint, 'S3_ENDPOINT');
  const { minioConsolePort } = ports;
  return {
    name: 'minio',
    endpoint: endpoints.s3Endpoint,
    host,
    port,
    ports: [
      { host, port, variable: 'S3_ENDPOINT', purpose: "MinIO's S3 API" },
      { host, port: minioConsolePort, variable: 'MINIO_CONSOLE_PORT', purpose: "MinIO's console" },
    ],
    processMarker: dataDir,
    isHealthy: () => minioReady(endpoints.s3Endpoint),
    install: installMinio,
    start: async () => {
      mkdirSync(dataDir, { recursive: true });
      return startDetached({
        name: 'minio',
        endpoint: endpoints.s3Endpoint,
        command: minioBinary,
        args: ['server', dataDir, '--address', `${host}:${port}`, '--console-address', `${host}:${minioConsolePort}`],
        env: {
          MINIO_ROOT_USER: endpoints.s3AccessKeyId,
          MINIO_ROOT_PASSWORD: endpoints.s3SecretAccessKey,
          MINIO_UPDATE: 'off',
        },
        cwd: join(localDir, 'minio'),
      });
    },
    healthTimeoutMs: 60_000,
    stopGraceMs: 20_000,
    logFiles: [logFilePath('minio')],
    // A first start builds it (minutes): tracing need not wait (services/main.ts).
    servicesStartWithout: true,
  };
}

async function minioReady(s3Endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(new URL('/minio/health/ready', s3Endpoint), { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** The module version a Go binary was built from (`go version -m`), or undefined. */
export async function builtModuleVersion(binary: string, modulePath: string): Promise<string | undefined> {
  if (!existsSync(binary)) return undefined;
  const { code, stdout } = await capture('go', ['version', '-m', binary]);
  if (code !== 0) return undefined;
  for (const line of stdout.split('\n')) {
    const [, kind, path, version] = line.split('\t');
    if (kind === 'mod' && path === modulePath) return version;
  }
  return undefined;
}

async function installMinio(): Promise<void> {
  await ensureCommands([{ command: 'go', hint: goHint }]);
  if ((await builtModuleVersion(minioBinary, minioModule)) === minioModuleVersion) return;
  const started = Date.now();
  const log = join(logsDir, 'install-minio.log');
  progress(
    `minio: building ${minioModule}@${minioModuleVersion} with go install (several minutes when the Go caches are cold)`,
  );
  // Niced: on a first `npm start` it builds while Kafka, ClickHouse and the services start, which should not wait for it.
  const build = runLogged(
    log,
    'nice',
    ['-n', '10', 'go', 'install', ...goBuildFlags, `${minioModule}@${minioModuleVersion}`],
    {
      env: { ...goBuildEnv, GOBIN: binDir },
    },
  );
  await withProgressTicks(build, (elapsed) => `minio: still building (${elapsed} so far; log: ${log})`);
  progress(`minio: built in ${seconds(started)}`);
}
