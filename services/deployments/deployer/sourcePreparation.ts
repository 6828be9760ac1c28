// The build step of a local deployment: a revision's source becomes a fresh working directory
// (`<revisionDir>/src`) holding a checked langgraph.json, its packages installed. Every failure is
// a BuildError whose message says what to fix (the ref, the path, the config field, the install's
// last lines). Commands run from argument arrays: no shell sees a URL, ref or path.
// The one exception is a deployment's own install command, which is a shell command by nature.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, rm, stat, symlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { loadAgentConfig, type AgentServerConfig } from '../../agent-server/index.ts';
import { MAX_SOURCE_TARBALL_BYTES, type RevisionSource, type SourceUploads } from './revisionSpec.ts';

/** A failure of the build that the deployment's owner can act on; the revision becomes BUILD_FAILED. */
export class BuildError extends Error {
  override readonly name = 'BuildError';
}

export interface BuildLimits {
  /** How long a clone, an extraction or a copy may take. */
  fetchTimeoutMs: number;
  /** How long the install may take. */
  installTimeoutMs: number;
}

export interface PreparedSource {
  /** The checkout (or extracted tarball, or copy): the root of the source. */
  sourceDir: string;
  /** The absolute path of the checked langgraph.json. */
  configFile: string;
  config: AgentServerConfig;
  /** The commit deployed, for a git source. */
  commitSha?: string;
}

interface RunResult {
  stdout: string;
  stderr: string;
}

/**
 * Runs a program without a shell; rejects with its last output lines when it fails, outlives
 * `timeoutMs` or `signal` fires. It runs in a process group of its own, and the whole group is
 * killed: an install's npm and the scripts it started go with it, and hold no pipe open after.
 */
function run(file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number; signal?: AbortSignal }): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    if (options.signal?.aborted) return reject(new Error('the deployment was stopped'));
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let ended: string | undefined;
    const killGroup = (why: string) => {
      ended ??= why;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => killGroup(`it did not finish within ${options.timeoutMs / 1000} s`), options.timeoutMs);
    const onAbort = () => killGroup('the deployment was stopped');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString('utf8')).slice(-OUTPUT_KEPT)));
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-OUTPUT_KEPT)));
    const settle = (err: Error | undefined, code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (!err && !ended && code === 0) return resolvePromise({ stdout, stderr });
      const output = lastLines(`${stderr}\n${stdout}`, 15);
      const why = ended ?? err?.message ?? `${file} ended with ${signal ?? `exit code ${code}`}`;
      reject(Object.assign(new Error(`${why}${output ? `\n${output}` : ''}`), { cause: err }));
    };
    child.once('error', (err) => settle(err, null, null));
    child.once('close', (code, signal) => settle(undefined, code, signal));
  });
}

/** The output of a command kept for its failure's message. */
const OUTPUT_KEPT = 64 * 1024;

export function lastLines(text: string, count: number): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter(Boolean)
    .slice(-count)
    .join('\n');
}

/** A full commit id: fetched by id, since `clone --branch` takes only branch and tag names. */
const COMMIT_SHA = /^[0-9a-f]{40}$/i;

/** `refs/tags/v1` and `refs/heads/main` (the control plane's repo_ref forms) as `clone --branch` takes them. */
export function branchOrTagName(ref: string): string {
  return ref.replace(/^refs\/(tags|heads)\//, '');
}

/** Git without prompts (a private URL fails at once instead of waiting for a password that never comes). */
const gitEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true' });

async function cloneGit(repoUrl: string, ref: string, into: string, limits: BuildLimits, signal?: AbortSignal): Promise<string> {
  if (repoUrl.startsWith('-')) throw new BuildError(`the repository URL "${repoUrl}" starts with "-"; give a URL or a path`);
  const opts = { env: gitEnv(), timeoutMs: limits.fetchTimeoutMs, signal };
  try {
    if (COMMIT_SHA.test(ref)) {
      await run('git', ['init', '--quiet', into], opts);
      await run('git', ['-C', into, 'fetch', '--quiet', '--depth', '1', '--', repoUrl, ref], opts);
      await run('git', ['-C', into, 'checkout', '--quiet', 'FETCH_HEAD'], opts);
    } else {
      await run('git', ['clone', '--quiet', '--depth', '1', `--branch=${branchOrTagName(ref)}`, '--', repoUrl, into], opts);
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new BuildError(`cannot fetch ${repoUrl} at ref "${ref}" (a branch, a tag or a full commit id): ${(err as Error).message}`, { cause: err });
  }
  return (await run('git', ['-C', into, 'rev-parse', 'HEAD'], opts)).stdout.trim();
}

/** Extracts a .tar.gz into `into`; `name` is how its failures name it (the upload's object path, or the file). */
async function extractTarball(
  path: string,
  into: string,
  limits: BuildLimits,
  signal?: AbortSignal,
  name = path,
): Promise<void> {
  if (!existsSync(path)) throw new BuildError(`the source tarball ${path} does not exist`);
  await mkdir(into, { recursive: true });
  try {
    // GNU tar keeps members inside `into`: it strips a leading "/" and refuses names with "..".
    await run('tar', ['-xzf', resolve(path), '-C', into, '--no-same-owner', '--no-same-permissions'], { timeoutMs: limits.fetchTimeoutMs, signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    const why = (err as Error).message;
    throw new BuildError(`cannot extract the source tarball ${name} (a .tar.gz is expected): ${why}`, { cause: err });
  }
}

/** Downloads an uploaded tarball beside the source directory, extracts it, and removes the download. */
async function extractUpload(
  objectPath: string,
  into: string,
  limits: BuildLimits,
  uploads: SourceUploads | undefined,
  signal?: AbortSignal,
): Promise<void> {
  if (!uploads) throw new BuildError('this deployer was given no object store, so it cannot read uploaded sources');
  const file = `${into}.tar.gz`;
  const upload =
    'upload it again: POST /v2/deployments/{id}/upload-url, PUT the .tar.gz to upload_url, then PATCH with its object_path';
  try {
    let download;
    const timeout = AbortSignal.timeout(limits.fetchTimeoutMs);
    try {
      download = await uploads.downloadToFile(objectPath, file, {
        maxBytes: MAX_SOURCE_TARBALL_BYTES,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      const why = timeout.aborted ? `it did not finish within ${limits.fetchTimeoutMs / 1000} s` : (err as Error).message;
      throw new BuildError(`cannot read the uploaded source ${objectPath} from the object store: ${why}`, { cause: err });
    }
    if (download.status === 'missing')
      throw new BuildError(
        `no source was uploaded at ${objectPath} (the PUT to its upload_url did not happen or failed); ${upload}`,
      );
    if (download.status === 'too_large')
      throw new BuildError(
        `the uploaded source ${objectPath} is ${(download.bytes / 1048576).toFixed(1)} MiB, ` +
          `over the ${MAX_SOURCE_TARBALL_BYTES / 1048576} MiB limit; ` +
          'leave large files out of it (.gitignore, .dockerignore) and upload it again',
      );
    await extractTarball(file, into, limits, signal, `uploaded at ${objectPath}`);
  } finally {
    await rm(file, { force: true });
  }
}

async function copyDirectory(path: string, into: string): Promise<void> {
  const info = await stat(path).catch(() => null);
  if (!info?.isDirectory()) throw new BuildError(`the source directory ${path} does not exist or is not a directory`);
  // Its installed packages and git history are not the source: the install step makes the former again.
  const skipped = new Set(['node_modules', '.git']);
  await cp(path, into, { recursive: true, verbatimSymlinks: true, filter: (from) => !skipped.has(from.split(sep).at(-1)!) || from === path });
}

/** Whether `path` is `dir` or inside it. */
const isInside = (dir: string, path: string): boolean => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && rel !== '..');
};

/** The source's langgraph.json, checked by the agent server's own loader, its graph files present. */
export function checkConfig(sourceDir: string, configPath: string): { configFile: string; config: AgentServerConfig } {
  const configFile = resolve(sourceDir, configPath);
  if (!isInside(sourceDir, configFile)) throw new BuildError(`the config path "${configPath}" leads outside the source`);
  if (!existsSync(configFile)) throw new BuildError(`the source has no ${configPath} (langgraph_config_path names the langgraph.json, relative to the source's root)`);
  let config: AgentServerConfig;
  try {
    config = loadAgentConfig(configFile);
  } catch (err) {
    throw new BuildError(`${configPath}: ${(err as Error).message}`, { cause: err });
  }
  for (const graph of config.graphs) {
    if (!existsSync(graph.file)) throw new BuildError(`${configPath}: graph "${graph.graphId}" names ${relative(config.dir, graph.file)}, which is not in the source`);
  }
  return { configFile, config };
}

export interface InstallOptions {
  /** The deployment's own install command (a shell command line); `npm install --no-audit --no-fund` when absent. */
  installCommand?: string;
  /** The environment of the install (PATH with the platform's Node first, HOME for npm's cache). */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Installs the source's packages when it has a package.json at its root (where the control plane runs install_command). */
export async function installPackages(sourceDir: string, options: InstallOptions): Promise<boolean> {
  if (!existsSync(join(sourceDir, 'package.json')) && !options.installCommand) return false;
  const [file, args] = options.installCommand ? ['/bin/sh', ['-c', options.installCommand]] : ['npm', ['install', '--no-audit', '--no-fund']];
  try {
    await run(file, args as string[], { cwd: sourceDir, env: options.env, timeoutMs: options.timeoutMs, signal: options.signal });
  } catch (err) {
    if (options.signal?.aborted) throw err;
    const what = options.installCommand ? `the install command "${options.installCommand}"` : '"npm install"';
    throw new BuildError(`${what} failed: ${(err as Error).message}`, { cause: err });
  }
  return true;
}

/**
 * Makes the platform's packages reachable from the source: `<revisionDir>/node_modules` links to
 * them. Graph modules are loaded with import(), and ESM resolution ignores NODE_PATH, so it is
 * the upward node_modules lookup that must find them; a link one level above the checkout leaves
 * the checkout as it is, lets the source's own install (`src/node_modules`) win, and resolves to
 * the very files the agent server loads (Node follows the link to its real path), so a graph and
 * the server share one @langchain/langgraph.
 */
export async function linkPlatformPackages(revisionDir: string, platformNodeModules: string): Promise<void> {
  const link = join(revisionDir, 'node_modules');
  if (!existsSync(link)) await symlink(platformNodeModules, link, 'dir');
}

/**
 * Fetches `source` into `<revisionDir>/src`; the config check and the install are separate steps.
 * An `upload` source is read through `uploads` (the control plane's object store).
 */
export async function fetchSource(
  source: RevisionSource,
  revisionDir: string,
  limits: BuildLimits,
  signal?: AbortSignal,
  uploads?: SourceUploads,
): Promise<Omit<PreparedSource, 'config' | 'configFile'>> {
  const sourceDir = join(revisionDir, 'src');
  await mkdir(dirname(sourceDir), { recursive: true });
  switch (source.kind) {
    case 'git':
      return { sourceDir, commitSha: await cloneGit(source.repoUrl, source.ref, sourceDir, limits, signal) };
    case 'tarball':
      await extractTarball(source.path, sourceDir, limits, signal);
      return { sourceDir };
    case 'upload':
      await extractUpload(source.objectPath, sourceDir, limits, uploads, signal);
      return { sourceDir };
    case 'directory':
      await copyDirectory(source.path, sourceDir);
      return { sourceDir };
  }
}
