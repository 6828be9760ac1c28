// PostgreSQL from Debian's `postgresql` package (15 on bookworm), run as a plain process on
// loopback with its data in .local/postgres/data. The package's own cluster (pg_ctlcluster,
// /etc/postgresql, /var/lib/postgresql) is never used. Port, superuser, password and database
// come from POSTGRES_URL; all but the port are fixed when the data directory is made.
import { createHash } from 'node:crypto';
import {
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { aptInstall } from './apt.ts';
import { capture, progress, runLogged } from './commands.ts';
import type { Component } from './component.ts';
import { localDir, logsDir, urlHostPort } from './config.ts';
import type { StackEndpoints } from './config.ts';
import { isAlive, logFilePath, pidsMatching, startDetached } from './processes.ts';

// Debian installs each major version's programs under /usr/lib/postgresql/<major>/bin.
const debianVersionsDir = '/usr/lib/postgresql';

/** Where a server lives on disk; tests give their own to run a second, private server. */
export type PostgresPlace = { name: string; dir: string };

/** Every folder from `dir` up lets other users through (mode o+x): the server's account can reach it. */
function traversableByOthers(dir: string): boolean {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(current) && (statSync(current).mode & 0o001) === 0) return false;
    if (dirname(current) === current) return true;
  }
}

/**
 * Where the local server's files live: .local/postgres, unless we run as root in a checkout
 * the `postgres` account cannot reach (e.g. under /root, mode 700); then a folder of this
 * checkout's own under /var/tmp, so `npm test` works wherever CI clones the repo.
 */
function defaultPostgresDir(): string {
  const inRepo = join(localDir, 'postgres');
  if (process.getuid?.() !== 0 || traversableByOthers(localDir)) return inRepo;
  return join(
    '/var/tmp',
    `langsmith-platform-${createHash('sha256').update(localDir).digest('hex').slice(0, 12)}`,
    'postgres',
  );
}

export const defaultPostgresPlace: PostgresPlace = { name: 'postgres', dir: defaultPostgresDir() };

export function postgresComponent(endpoints: StackEndpoints, place: PostgresPlace = defaultPostgresPlace): Component {
  const { host, port } = urlHostPort(endpoints.postgresUrl, 'POSTGRES_URL');
  const dataDir = join(place.dir, 'data');
  return {
    name: place.name,
    endpoint: endpoints.postgresUrl,
    host,
    port,
    ports: [{ host: listenAddress(host), port, variable: 'POSTGRES_URL', purpose: 'PostgreSQL' }],
    // The postmaster keeps its command line (its children retitle themselves), and it names the data dir.
    processMarker: dataDir,
    isHealthy: () => postgresAnswers(endpoints.postgresUrl),
    install: installPostgres,
    start: async () => {
      const account = await serverAccount();
      const binDir = serverBinDir(dataDir);
      await initdbOnce(binDir, place, dataDir, endpoints.postgresUrl, account);
      const settings = {
        listen_addresses: listenAddress(host),
        port: String(port),
        // TCP only: Debian's default socket folder (/var/run/postgresql) may be missing or
        // another user's, and a socket path under .local could pass the 107-byte limit.
        unix_socket_directories: '',
      };
      const server = asAccount(account, join(binDir, 'postgres'), [
        '-D',
        dataDir,
        ...Object.entries(settings).flatMap(([key, value]) => ['-c', `${key}=${value}`]),
      ]);
      return startDetached({ name: place.name, endpoint: endpoints.postgresUrl, ...server, cwd: place.dir });
    },
    healthTimeoutMs: 60_000,
    // SIGTERM is PostgreSQL's "smart" shutdown, which waits for every client to disconnect (a
    // pooled agent server never does); SIGINT is its "fast" shutdown: roll back, disconnect, stop.
    stopSignal: 'SIGINT',
    stopGraceMs: 30_000,
    logFiles: [logFilePath(place.name), join(logsDir, `${place.name}-initdb.log`)],
  };
}

/** A real connection with the URL's credentials, and a query. */
async function postgresAnswers(postgresUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 2_000, query_timeout: 3_000 });
  client.on('error', () => undefined); // a server going away mid-check is just "not healthy"
  try {
    await client.connect();
    const result = await client.query<{ one: number }>('SELECT 1 AS one');
    return result.rows[0]?.one === 1;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Major versions with a server installed, newest first. */
function installedMajors(): string[] {
  if (!existsSync(debianVersionsDir)) return [];
  return readdirSync(debianVersionsDir)
    .filter((major) => existsSync(join(debianVersionsDir, major, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
}

/**
 * The bin folder of the major version the data directory was made with (a newer major
 * cannot open it), or of the newest installed one for a data directory still to be made.
 */
function serverBinDir(dataDir: string): string {
  const installed = installedMajors();
  const versionFile = join(dataDir, 'PG_VERSION');
  const dataVersion = existsSync(versionFile) ? readFileSync(versionFile, 'utf8').trim() : undefined;
  if (dataVersion !== undefined && !installed.includes(dataVersion)) {
    throw new Error(
      `${dataDir} was made by PostgreSQL ${dataVersion}, which is not installed (found: ${installed.join(', ') || 'none'}); install postgresql-${dataVersion} or remove ${dataDir}`,
    );
  }
  const major = dataVersion ?? installed[0];
  if (major === undefined) throw new Error(`no PostgreSQL server under ${debianVersionsDir}/<major>/bin`);
  return join(debianVersionsDir, major, 'bin');
}

async function installPostgres(): Promise<void> {
  if (installedMajors().length > 0) return;
  progress('postgres: installing Debian package postgresql (apt-get)');
  const packagedServer = 'config_file=/etc/postgresql/';
  const before = new Set(pidsMatching(packagedServer));
  await aptInstall(['postgresql'], join(logsDir, 'install-postgres.log'));
  // Should the postinst have started the package's cluster after all, stop exactly that
  // server (fast shutdown): it would hold 5432.
  for (const pid of pidsMatching(packagedServer)) {
    if (before.has(pid) || !isAlive(pid)) continue;
    progress(`postgres: stopping the server the package install started (pid ${pid})`);
    process.kill(pid, 'SIGINT');
  }
}

function listenAddress(host: string): string {
  return host === 'localhost' ? '127.0.0.1' : host;
}

type Account = { user: string; uid: number; gid: number };

/**
 * Whom the server runs as. initdb and postgres refuse to run as root, and CI runs as root:
 * then they run as the `postgres` system account that Debian's package creates for exactly
 * this (an account that owns no files, like `nobody`, should not start owning a database).
 * undefined: run as ourselves.
 */
async function serverAccount(): Promise<Account | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const user = 'postgres';
  const [uid, gid] = await Promise.all([capture('id', ['-u', user]), capture('id', ['-g', user])]);
  if (uid.code !== 0 || gid.code !== 0) {
    throw new Error(
      `PostgreSQL refuses to run as root, and there is no "${user}" account to run it as (Debian's postgresql package creates one)`,
    );
  }
  return { user, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * The command that runs `program` as the account. setpriv (util-linux, always on Debian)
 * changes user and then execs in place, so the pid we record is the postmaster itself;
 * su and runuser stay behind as its parent.
 */
function asAccount(account: Account | undefined, program: string, args: string[]): { command: string; args: string[] } {
  if (account === undefined) return { command: program, args };
  return {
    command: 'setpriv',
    args: [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--init-groups', '--', program, ...args],
  };
}

/**
 * initdb with the URL's superuser and password, plus the URL's database when it is not the
 * default one (as the official image's POSTGRES_DB does). Made in a staging folder that is
 * renamed into place once complete, so a half-made cluster is never started.
 */
async function initdbOnce(
  binDir: string,
  { name, dir }: PostgresPlace,
  dataDir: string,
  postgresUrl: string,
  account: Account | undefined,
): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const url = new URL(postgresUrl);
  const user = decodeURIComponent(url.username) || 'postgres';
  const password = decodeURIComponent(url.password);
  const database = decodeURIComponent(url.pathname.slice(1)) || user;
  mkdirSync(dir, { recursive: true });
  if (account) await ensureReachable(dir, account);
  const staging = `${dataDir}.initdb`;
  rmSync(staging, { recursive: true, force: true });
  const logFile = join(logsDir, `${name}-initdb.log`);
  const passwordFile = join(dir, 'initdb-password');
  // Without a password in the URL, loopback clients are trusted, as ClickHouse's default user is.
  const auth = password ? ['--auth-host=scram-sha-256', `--pwfile=${passwordFile}`] : ['--auth-host=trust'];
  if (password) {
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    if (account) chownSync(passwordFile, account.uid, account.gid);
  }
  progress(`postgres: initdb ${dataDir} (superuser ${user}, database ${database})`);
  try {
    const initdb = asAccount(account, join(binDir, 'initdb'), [
      '-D',
      staging,
      `--username=${user}`,
      '--auth-local=trust',
      ...auth,
      '--encoding=UTF8',
      '--locale=C',
    ]);
    await runLogged(logFile, initdb.command, initdb.args);
  } finally {
    rmSync(passwordFile, { force: true });
  }
  if (database !== 'postgres') {
    // Single-user mode reads SQL on stdin and opens no port; exit_on_error makes a failed
    // statement a non-zero exit (it is 0 otherwise).
    const single = asAccount(account, join(binDir, 'postgres'), [
      '--single',
      '-c',
      'exit_on_error=on',
      '-D',
      staging,
      'postgres',
    ]);
    await runLogged(logFile, single.command, single.args, {
      input: `CREATE DATABASE "${database.replaceAll('"', '""')}"\n`,
    });
  }
  renameSync(staging, dataDir);
}

/** The folder is the account's, and every folder above it lets the account through. */
async function ensureReachable(dir: string, account: Account): Promise<void> {
  chownSync(dir, account.uid, account.gid);
  const check = asAccount(account, 'test', ['-w', dir, '-a', '-x', dir]);
  const { code } = await capture(check.command, check.args);
  if (code !== 0) {
    throw new Error(
      `PostgreSQL refuses to run as root, and the "${account.user}" account it runs as cannot reach ${dir}; let other users through its parent folders (chmod o+x) or run as an ordinary user`,
    );
  }
}
