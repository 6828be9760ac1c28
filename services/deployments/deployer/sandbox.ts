// Where a deployment's code runs: each command of a revision (its install and build commands, its
// agent server) in a bubblewrap sandbox (Debian's `bubblewrap`), because deployed code is a tenant,
// not an operator. Inside it:
// - the filesystem is the system's programs and libraries (read-only), the platform's code that the
//   agent server is made of (read-only: its package.json, node_modules and source folders, never
//   `.local/` or any other data of the platform), the revision's own directory (read-write), and
//   an empty /tmp; nothing else of the host, and no other deployment's directory;
// - it runs as an unprivileged user of its own (a uid derived from the deployment id) when the
//   control plane runs as root, and in new user, PID, IPC, UTS and network namespaces: it sees no
//   host process (nor their environments), and its network is its own loopback only;
// - it reaches the network only through the revision's egress proxy (egressProxy.ts), which the
//   sandbox entry (sandboxEntry.ts) exposes inside as http://127.0.0.1:3128 (HTTP_PROXY): the
//   internet, the platform's tracing API and auth endpoint, never the platform's brokers,
//   databases or object store;
// - its agent server listens on a Unix socket in the revision's `run/` directory, which the
//   deployer bridges to a loopback port for the gateway.
// Not limited: CPU, memory, disk and the number of processes (docs/local-deployer.md).
//
// `none` runs commands as the platform's user, unsandboxed: for a machine where every deployment
// is the operator's own (documented as such), or one without bubblewrap.
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { chown, mkdir, readdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export type SandboxMode = 'bwrap' | 'none';

/** Inside the sandbox: where its egress bridge listens (its own loopback, so any port is free). */
export const SANDBOX_PROXY_URL = 'http://127.0.0.1:3128';

/**
 * The environment that sends every HTTP client of a sandboxed command through the egress bridge:
 * the variables npm, curl and most libraries read, and Node's own (NODE_USE_ENV_PROXY: fetch and
 * node:http honour HTTP_PROXY). Nothing is exempt: the sandbox's loopback holds nothing but the bridge.
 */
export const SANDBOX_PROXY_ENV: Readonly<Record<string, string>> = {
  HTTP_PROXY: SANDBOX_PROXY_URL,
  HTTPS_PROXY: SANDBOX_PROXY_URL,
  http_proxy: SANDBOX_PROXY_URL,
  https_proxy: SANDBOX_PROXY_URL,
  NO_PROXY: '',
  no_proxy: '',
  NODE_USE_ENV_PROXY: '1',
};

/** What a revision's commands need of the host to run the platform's agent server. */
const PLATFORM_PATHS = [
  'package.json',
  'tsconfig.json',
  'node_modules',
  'platform',
  'services',
  'schemas',
  'projections',
];
/** The system, read-only. /etc only in part: name resolution files, certificates, users, time zone. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
const ETC_FILES = [
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/ca-certificates.conf',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/localtime',
  '/etc/hosts',
  '/etc/resolv.conf',
  '/etc/alternatives',
];

const BWRAP = '/usr/bin/bwrap';

/** The first uid handed to deployments, and how many there are (well clear of the system's and people's). */
const UID_BASE = 2_000_000;
const UID_RANGE = 1 << 20;

export interface SandboxOptions {
  mode: SandboxMode;
  /** The platform's checkout: the root of PLATFORM_PATHS. */
  platformRoot: string;
  /** The Node that runs the commands (its installation is bound read-only). */
  nodePath: string;
}

/** A program to run for a revision, before the sandbox wraps it. */
export interface SandboxedCommand {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

export interface SpawnPlan {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** The revision's directories: its whole folder (read-write inside), and where its sockets and home live. */
export interface RevisionPaths {
  dir: string;
  /**
   * The egress proxy's and the agent server's sockets: a short path under the system's temporary
   * directory (a Unix socket's path is at most 107 bytes; the revision's folder may be longer).
   */
  runDir: string;
  /** HOME inside the sandbox (npm's cache, tools' dot-files). */
  homeDir: string;
}

export const revisionPaths = (dir: string): RevisionPaths => ({
  dir,
  runDir: join(tmpdir(), `deployment-run-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}`),
  homeDir: join(dir, 'home'),
});

export class Sandbox {
  readonly mode: SandboxMode;
  readonly #options: SandboxOptions;
  /** Whether this process can hand commands to another user (root). */
  readonly #switchesUser = process.getuid?.() === 0;

  constructor(options: SandboxOptions) {
    this.mode = options.mode;
    this.#options = options;
  }

  /** Why commands cannot run sandboxed here (a sentence for a failed build), or null. */
  problem(): string | null {
    if (this.mode === 'none') return null;
    if (process.platform !== 'linux')
      return 'the deployer sandbox (bubblewrap) runs on Linux only; set DEPLOYER_SANDBOX=none to run deployments unsandboxed';
    if (!existsSync(BWRAP))
      return 'bubblewrap is not installed (apt-get install bubblewrap; `npm start` installs it as root), or set DEPLOYER_SANDBOX=none to run deployments unsandboxed';
    if (this.#switchesUser && !existsSync('/usr/bin/setpriv'))
      return 'setpriv (Debian package util-linux) is not installed: the sandbox drops to its user with it';
    return null;
  }

  /** The uid (and gid) a deployment's commands run as; null when they run as this process's user. */
  uidOf(deploymentId: string): number | null {
    if (this.mode === 'none' || !this.#switchesUser) return null;
    const n = createHash('sha256').update(deploymentId).digest().readUInt32BE(0) % UID_RANGE;
    return UID_BASE + n;
  }

  /** Makes the revision's run/ and home/ directories, and hands the whole directory to its user. */
  async prepare(paths: RevisionPaths, deploymentId: string): Promise<void> {
    await mkdir(paths.runDir, { recursive: true });
    await mkdir(paths.homeDir, { recursive: true });
    const uid = this.uidOf(deploymentId);
    if (uid !== null) {
      await chownTree(paths.dir, uid);
      await chown(paths.runDir, uid, uid);
    }
  }

  /**
   * How to spawn `command` for the revision at `paths` of `deploymentId`. As root, bubblewrap sets
   * the sandbox up with root's reach (any folder can be bound, whatever the folders above it
   * allow), without a user namespace, and setpriv then drops to the deployment's uid, without
   * capabilities and with no_new_privs, before the command runs. Otherwise bubblewrap runs
   * unprivileged, in a user namespace, as this process's user.
   */
  plan(command: SandboxedCommand, paths: RevisionPaths, deploymentId: string): SpawnPlan {
    const env = { ...command.env, HOME: paths.homeDir };
    if (this.mode === 'none') return { file: command.file, args: command.args, env, cwd: command.cwd };
    const uid = this.uidOf(deploymentId);
    const node = nodeInstallation(this.#options.nodePath);
    const binds: [string, string][] = [
      ['--ro-bind', node],
      ...PLATFORM_PATHS.map((p): [string, string] => ['--ro-bind-try', join(this.#options.platformRoot, p)]),
      ['--bind', paths.dir],
      ['--bind', paths.runDir],
    ];
    binds.sort((a, b) => a[1].length - b[1].length);
    const namespaces =
      uid === null
        ? ['--unshare-all']
        : ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try'];
    const dropToUser =
      uid === null
        ? []
        : [
            '/usr/bin/setpriv',
            `--reuid=${uid}`,
            `--regid=${uid}`,
            '--clear-groups',
            '--inh-caps=-all',
            '--bounding-set=-all',
            '--no-new-privs',
            '--',
          ];
    const args = [
      '--die-with-parent',
      ...namespaces,
      '--new-session',
      '--hostname',
      'sandbox',
      ...(uid === null ? [] : ['--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID']),
      ...SYSTEM_DIRS.flatMap(systemPath),
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--tmpfs',
      '/tmp',
      // The folders above what is bound, searchable by the sandbox's user (bubblewrap makes them 0700 as root).
      ...ancestors([...binds.map(([, path]) => path), ...ETC_FILES]).flatMap((dir) => [
        '--perms',
        '0755',
        '--dir',
        dir,
      ]),
      ...ETC_FILES.flatMap((path) => ['--ro-bind-try', path, path]),
      ...binds.flatMap(([how, path]) => [how, path, path]),
      '--chdir',
      command.cwd,
      '--',
      ...dropToUser,
      command.file,
      ...command.args,
    ];
    return { file: BWRAP, args, env, cwd: command.cwd };
  }
}

/** The folders above `paths` that are not themselves among (or inside) them, shallowest first. */
function ancestors(paths: string[]): string[] {
  const inside = (dir: string) => paths.some((p) => dir === p || dir.startsWith(`${p}/`));
  const dirs = new Set<string>();
  for (const path of paths)
    for (let dir = dirname(path); dir !== '/' && dir !== '.'; dir = dirname(dir))
      if (!inside(dir) && dir !== '/tmp') dirs.add(dir);
  return [...dirs].sort((a, b) => a.length - b.length);
}

/** A system directory as bwrap takes it: a symlink (/bin → usr/bin on merged-/usr systems) as a symlink. */
function systemPath(path: string): string[] {
  if (!existsSync(path)) return [];
  return lstatSync(path).isSymbolicLink() ? ['--symlink', readlinkSync(path), path] : ['--ro-bind', path, path];
}

/** The folder of a Node installation: `<prefix>` of `<prefix>/bin/node` (the `node` npm package, or /usr). */
function nodeInstallation(nodePath: string): string {
  const bin = dirname(nodePath);
  return dirname(bin) === '/' ? bin : dirname(bin);
}

/** chown -R, without following symlinks (the source's link to the platform's node_modules stays the platform's). */
async function chownTree(dir: string, uid: number): Promise<void> {
  await chown(dir, uid, uid);
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) continue;
    await chown(path, uid, uid);
  }
}
