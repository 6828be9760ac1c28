// docker-compose.yml run for real on a machine that reaches no container registry (npm run
// test:compose): a Docker engine from Debian's docker.io, started by hand where nothing runs it;
// the product image from our Dockerfile; and local stand-ins for the third-party images the
// compose file names, built from what the package registries serve (infra/compose/standins/*):
//   localhost/debian:bookworm     mmdebstrap --variant=minbase bookworm, docker import
//   localhost/node:24-slim        Node 24 from the npm registry's `node` package, npm from `npm`
//   localhost/kafka:3.9.2         the broker's jars from Maven Central (infra/kafka/pom.xml)
//   localhost/clickhouse-server   Debian's clickhouse-server
//   localhost/postgres:15         Debian's postgresql-15
//   localhost/minio               MinIO from its Go module (the binary infra/minio.ts builds)
//   localhost/nginx               Debian's nginx
// infra/compose/docker-compose.standins.yml maps the compose file's images to them; the user's
// compose file keeps the upstream images. Docker Compose v2 itself is built from its Go module
// (infra/compose/compose-cli). Stand-ins are rebuilt only when their inputs change (a label on
// the image holds the hash of its inputs).
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { capture, progress, runLogged, seconds, withProgressTicks } from './commands.ts';
import { binDir, endpointsFromEnv, localDir, logsDir, repoRoot } from './config.ts';
import { installKafkaJarsOnce, kafkaLibsDir } from './kafka.ts';
import { goBuildEnv, minioBinary, minioComponent } from './minio.ts';
import { logFilePath, ownPid, type StartedServer, startDetached, waitUntilHealthy } from './processes.ts';
import { inputsHash, stampMatches, writeStamp } from './stamps.ts';
import { ensureCommands } from './toolchain.ts';

const composeDir = join(repoRoot, 'infra', 'compose');
const standinsDir = join(composeDir, 'standins');
const workDir = join(localDir, 'compose');
const log = join(logsDir, 'compose-build.log');

/** The compose command built from infra/compose/compose-cli. */
export const composeBinary = join(binDir, 'docker-compose');
export const productImage = 'langsmith-compatible-platform:dev';
export const baseImage = 'localhost/debian:bookworm';

/** The compose files of the local run, in order: the user's, the stand-ins, the test's ports. */
export const composeFiles = [
  join(repoRoot, 'docker-compose.yml'),
  join(composeDir, 'docker-compose.standins.yml'),
  join(composeDir, 'docker-compose.test.yml'),
];

type Standin = {
  image: string;
  /** Its folder under infra/compose/standins. */
  dir: string;
  /** What goes into the build context beside the folder's files: name in the context → host path. */
  artifacts?: () => Promise<Record<string, string>>;
};

const nodeBinary = join(repoRoot, 'node_modules', 'node', 'bin', 'node');

export const standins: Standin[] = [
  {
    image: 'localhost/node:24-slim',
    dir: 'node',
    artifacts: async () => ({
      node: nodeBinary,
      npm: await npmPackage(),
      'ca-certificates.crt': '/etc/ssl/certs/ca-certificates.crt',
    }),
  },
  {
    image: 'localhost/kafka:3.9.2',
    dir: 'kafka',
    artifacts: async () => {
      await installKafkaJarsOnce();
      return { libs: kafkaLibsDir };
    },
  },
  { image: 'localhost/clickhouse-server:18.16', dir: 'clickhouse' },
  { image: 'localhost/postgres:15', dir: 'postgres' },
  {
    image: 'localhost/minio:go-module',
    dir: 'minio',
    artifacts: async () => {
      await minioComponent(endpointsFromEnv()).install();
      return { minio: minioBinary };
    },
  },
  { image: 'localhost/nginx:debian', dir: 'nginx' },
];

/** Docker's daemon answers; started by hand (no systemd here) when it does not, and kept running. */
export async function ensureDockerEngine(): Promise<void> {
  await ensureCommands([
    { command: 'dockerd', aptPackage: 'docker.io' },
    { command: 'mmdebstrap', aptPackage: 'mmdebstrap' },
  ]);
  const answers = async () => (await capture('docker', ['info', '--format', '{{.ServerVersion}}'])).code === 0;
  if (await answers()) return;
  let server: StartedServer | undefined;
  if (ownPid('dockerd', 'dockerd') === undefined) {
    progress('compose: starting the Docker daemon (dockerd, runc)');
    // runc, the default: crun fails on these machines' hybrid cgroups.
    server = startDetached({ name: 'dockerd', endpoint: 'unix:///var/run/docker.sock', command: 'dockerd', args: [] });
  }
  await waitUntilHealthy({
    name: 'the Docker daemon',
    isHealthy: answers,
    timeoutMs: 60_000,
    logFiles: [logFilePath('dockerd')],
    ...(server ? { server } : {}),
  });
}

/** Compose v2, built from its Go module into .local/bin/docker-compose unless current. */
export async function ensureComposeCommand(): Promise<void> {
  const source = join(composeDir, 'compose-cli');
  const stamp = `${composeBinary}.sha256`;
  const hash = inputsHash(['go.mod', 'go.sum', 'tools.go'].map((file) => join(source, file)));
  if (existsSync(composeBinary) && stampMatches(stamp, hash)) return;
  await ensureCommands([{ command: 'go', hint: 'install Go >= 1.26 and put it on PATH' }]);
  const started = Date.now();
  progress('compose: building Docker Compose v2 from its Go module (infra/compose/compose-cli)');
  const version = /github\.com\/docker\/compose\/v5 (v[^\s]+)/.exec(
    (await capture('go', ['list', '-m', 'github.com/docker/compose/v5'], { cwd: source })).stdout,
  )?.[1];
  const build = runLogged(
    log,
    'go',
    [
      'build',
      '-trimpath',
      `-ldflags=-s -w -X github.com/docker/compose/v5/internal.Version=${version ?? 'unknown'}`,
      '-o',
      composeBinary,
      'github.com/docker/compose/v5/cmd',
    ],
    { cwd: source, env: goBuildEnv },
  );
  await withProgressTicks(build, (elapsed) => `compose: still building Compose (${elapsed}; log: ${log})`);
  writeStamp(stamp, hash);
  progress(`compose: Compose built in ${seconds(started)}`);
}

async function imageLabel(image: string, label: string): Promise<string | undefined> {
  const result = await capture('docker', [
    'image',
    'inspect',
    '--format',
    `{{index .Config.Labels "${label}"}}`,
    image,
  ]);
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/** localhost/debian:bookworm from Debian's packages: the base of every stand-in. */
export async function ensureBaseImage(): Promise<BuildReport> {
  // As Debian's slim images: no manual pages, translations or documentation (copyrights kept),
  // in this image and in everything a later apt-get installs on it.
  const slim = [
    'path-exclude=/usr/share/man/*',
    'path-exclude=/usr/share/locale/*',
    'path-include=/usr/share/locale/locale.alias',
    'path-exclude=/usr/share/doc/*',
    'path-include=/usr/share/doc/*/copyright',
    'path-exclude=/usr/share/info/*',
  ].flatMap((option) => ['--dpkgopt', option]);
  const args = ['--variant=minbase', ...slim, 'bookworm'];
  const hash = inputsHash([], args);
  if ((await imageLabel(baseImage, 'lscp.inputs')) === hash) return { image: baseImage, built: false, seconds: 0 };
  const started = Date.now();
  progress(`compose: building ${baseImage} (mmdebstrap --variant=minbase bookworm)`);
  mkdirSync(workDir, { recursive: true });
  const tarball = join(workDir, 'bookworm.tar');
  await runLogged(log, 'mmdebstrap', [...args, tarball]);
  await runLogged(log, 'docker', [
    'import',
    '--change',
    'CMD ["bash"]',
    '--change',
    `LABEL lscp.inputs=${hash}`,
    tarball,
    baseImage,
  ]);
  rmSync(tarball, { force: true });
  progress(`compose: ${baseImage} in ${seconds(started)}`);
  return { image: baseImage, built: true, seconds: (Date.now() - started) / 1000 };
}

/** npm, as the registry publishes it (the major this project's npm uses), unpacked once. */
async function npmPackage(): Promise<string> {
  const dir = join(workDir, 'npm');
  if (existsSync(join(dir, 'package', 'package.json'))) return join(dir, 'package');
  mkdirSync(dir, { recursive: true });
  const version = (await capture('npm', ['--version'])).stdout.trim().split('.')[0] ?? '11';
  await runLogged(log, 'npm', ['pack', `npm@${version}`, '--pack-destination', dir]);
  const tarball = readdirSync(dir).find((file) => file.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack left no tarball in ${dir}`);
  await runLogged(log, 'tar', ['-xzf', join(dir, tarball), '-C', dir]);
  return join(dir, 'package');
}

/** The files of a folder (recursively), or the path itself when it is a file. */
function filesOf(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** Builds a stand-in unless its image was built from the same inputs. */
async function buildStandin(standin: Standin): Promise<BuildReport> {
  const started = Date.now();
  const folder = join(standinsDir, standin.dir);
  const artifacts = (await standin.artifacts?.()) ?? {};
  // The base's id among the inputs: a new base rebuilds every stand-in.
  const base = (await capture('docker', ['image', 'inspect', '--format', '{{.Id}}', baseImage])).stdout.trim();
  const hash = inputsHash([folder, ...Object.values(artifacts)].flatMap(filesOf), [base]);
  if ((await imageLabel(standin.image, 'lscp.inputs')) === hash)
    return { image: standin.image, built: false, seconds: 0 };
  progress(`compose: building ${standin.image} (infra/compose/standins/${standin.dir})`);
  const context = join(workDir, 'context', standin.dir);
  rmSync(context, { recursive: true, force: true });
  cpSync(folder, context, { recursive: true });
  for (const [name, path] of Object.entries(artifacts)) cpSync(path, join(context, name), { recursive: true });
  await runLogged(log, 'docker', [
    'build',
    '--build-arg',
    `BASE_IMAGE=${baseImage}`,
    '--label',
    `lscp.inputs=${hash}`,
    '-t',
    standin.image,
    context,
  ]);
  rmSync(context, { recursive: true, force: true });
  return { image: standin.image, built: true, seconds: (Date.now() - started) / 1000 };
}

export type BuildReport = { image: string; built: boolean; seconds: number; bytes?: number };

/** Every stand-in, one after the other (two cores: builds in parallel only contend). */
export async function buildStandins(): Promise<BuildReport[]> {
  const reports: BuildReport[] = [await ensureBaseImage()];
  for (const standin of standins) reports.push(await buildStandin(standin));
  return reports;
}

/** The product image from our Dockerfile, on the Node stand-in. */
export async function buildProductImage(tag = productImage): Promise<BuildReport> {
  const started = Date.now();
  progress(`compose: building ${tag} from Dockerfile`);
  const build = runLogged(log, 'docker', [
    'build',
    '--build-arg',
    'NODE_IMAGE=localhost/node:24-slim',
    // When it was built: a rebuild of the same sources (its layers from the cache) is a new image all the same.
    '--label',
    `lscp.built=${new Date().toISOString()}`,
    '-t',
    tag,
    repoRoot,
  ]);
  await withProgressTicks(build, (elapsed) => `compose: still building ${tag} (${elapsed}; log: ${log})`);
  return { image: tag, built: true, seconds: (Date.now() - started) / 1000, bytes: await imageBytes(tag) };
}

export async function imageBytes(image: string): Promise<number | undefined> {
  const result = await capture('docker', ['image', 'inspect', '--format', '{{.Size}}', image]);
  return result.code === 0 ? Number(result.stdout.trim()) : undefined;
}

/** Everything `compose up` needs: the engine, Compose, the stand-ins and the product image. */
export async function buildAll(): Promise<BuildReport[]> {
  await ensureDockerEngine();
  await ensureComposeCommand();
  const reports = await buildStandins();
  reports.push(await buildProductImage());
  for (const report of reports) report.bytes ??= await imageBytes(report.image);
  return reports;
}

/** The compose project of the local run: its containers, network and volumes are named after it. */
export const composeProject = 'lscp-compose';

/** `docker compose` on the local run's files and project, with `env` for the files' variables. */
export function composeArgs(args: string[]): string[] {
  return ['--project-name', composeProject, ...composeFiles.flatMap((file) => ['--file', file]), ...args];
}

/** Runs a compose command to completion, its output in the build log; throws on failure. */
export function compose(args: string[], env: Record<string, string>): Promise<void> {
  return runLogged(join(logsDir, 'compose.log'), composeBinary, composeArgs(args), { env, cwd: repoRoot });
}

/** A compose command's output (never throws for a non-zero exit). */
export function composeCapture(args: string[], env: Record<string, string>) {
  return capture(composeBinary, composeArgs(args), { env, cwd: repoRoot });
}

// `npm run compose:images`: every image the topology needs, built here (what test:compose builds first).
if (import.meta.main) {
  const started = Date.now();
  for (const report of await buildAll())
    progress(
      `compose: ${report.image} ${report.built ? `built in ${report.seconds.toFixed(1)}s` : 'up to date'} (${Math.round((report.bytes ?? 0) / 1e6)} MB)`,
    );
  progress(
    `compose: every image in ${seconds(started)}; then: .local/bin/docker-compose -f docker-compose.yml -f infra/compose/docker-compose.standins.yml up -d`,
  );
}
