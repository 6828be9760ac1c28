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
import { HostDeniedError, OutboundHostPolicy } from '../../../platform/outboundHostPolicy.ts';
import { gitLocation } from '../sourceLocations.ts';
import { MAX_SOURCE_TARBALL_BYTES, type RevisionSource, type SourceUploads } from './revisionSpec.ts';
import type { SandboxedCommand, SpawnPlan } from './sandbox.ts';

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
interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Each chunk of its output as it comes (the revision's build log). */
  onOutput?: (text: string, stream: 'stdout' | 'stderr') => void;
}

function run(file: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    if (options.signal?.aborted) return reject(new Error('the deployment was stopped'));
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
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
    const timer = setTimeout(
      () => killGroup(`it did not finish within ${options.timeoutMs / 1000} s`),
      options.timeoutMs,
    );
    const onAbort = () => killGroup('the deployment was stopped');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stdout = (stdout + text).slice(-OUTPUT_KEPT);
      options.onOutput?.(text, 'stdout');
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stderr = (stderr + text).slice(-OUTPUT_KEPT);
      options.onOutput?.(text, 'stderr');
    });
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

/**
 * Git without prompts (a private URL fails at once instead of waiting for a password that never
 * comes), without the user's or the system's git configuration, and with only the transports
 * `protocols` names (GIT_ALLOW_PROTOCOL: never ext::, fd::, nor file unless local sources are allowed).
 */
const gitEnv = (protocols: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: 'true',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_ALLOW_PROTOCOL: protocols,
});

/** Where git may fetch a source from (sourceLocations.ts): its rules, and whether local sources are allowed now. */
export interface GitSourceRules {
  localAllowed: boolean;
  hosts: OutboundHostPolicy;
}

/**
 * Git options that hold a clone to what the rules allow: for a remote host when local sources are
 * not allowed, its addresses are checked by the host policy, and an http(s) clone is pinned to
 * the checked address (curl's resolve list) and follows no redirect, so neither a name that
 * resolves elsewhere later nor a redirect takes it to a private address.
 */
async function gitGuard(repoUrl: string, rules: GitSourceRules): Promise<{ config: string[]; protocols: string }> {
  const where = gitLocation(repoUrl);
  if (where.kind === 'unsupported') throw new BuildError(`the repository URL ${repoUrl} is refused: ${where.why}`);
  if (rules.localAllowed) return { config: [], protocols: 'https:http:ssh:git:file' };
  if (where.kind === 'local')
    throw new BuildError(
      `the repository URL ${repoUrl} is a path on the control plane's machine, which this control plane does not build from (DEPLOYMENT_LOCAL_SOURCES)`,
    );
  let addresses: string[];
  try {
    addresses = await rules.hosts.check(where.host, where.port);
  } catch (err) {
    if (err instanceof HostDeniedError)
      throw new BuildError(
        `the repository URL ${repoUrl} leads to a loopback or private address, which this control plane does not build from (DEPLOYMENT_ALLOWED_HOSTS)`,
      );
    throw new BuildError(`cannot resolve the host of ${repoUrl}: ${(err as Error).message}`, { cause: err });
  }
  const pinned =
    where.scheme === 'http' || where.scheme === 'https'
      ? ['-c', `http.curloptResolve=${where.host}:${where.port}:${addresses[0]}`]
      : [];
  return { config: [...pinned, '-c', 'http.followRedirects=false'], protocols: 'https:http:ssh:git' };
}

async function cloneGit(
  repoUrl: string,
  ref: string,
  into: string,
  limits: BuildLimits,
  rules: GitSourceRules,
  signal?: AbortSignal,
  onOutput?: RunOptions['onOutput'],
): Promise<string> {
  if (repoUrl.startsWith('-'))
    throw new BuildError(`the repository URL "${repoUrl}" starts with "-"; give a URL or a path`);
  const guard = await gitGuard(repoUrl, rules);
  const opts = { env: gitEnv(guard.protocols), timeoutMs: limits.fetchTimeoutMs, signal, onOutput };
  try {
    if (COMMIT_SHA.test(ref)) {
      await run('git', ['init', '--quiet', into], opts);
      await run('git', [...guard.config, '-C', into, 'fetch', '--quiet', '--depth', '1', '--', repoUrl, ref], opts);
      await run('git', ['-C', into, 'checkout', '--quiet', 'FETCH_HEAD'], opts);
    } else {
      await run(
        'git',
        [...guard.config, 'clone', '--quiet', '--depth', '1', `--branch=${branchOrTagName(ref)}`, '--', repoUrl, into],
        opts,
      );
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new BuildError(
      `cannot fetch ${repoUrl} at ref "${ref}" (a branch, a tag or a full commit id): ${(err as Error).message}`,
      { cause: err },
    );
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
    await run('tar', ['-xzf', resolve(path), '-C', into, '--no-same-owner', '--no-same-permissions'], {
      timeoutMs: limits.fetchTimeoutMs,
      signal,
    });
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
      const why = timeout.aborted
        ? `it did not finish within ${limits.fetchTimeoutMs / 1000} s`
        : (err as Error).message;
      throw new BuildError(`cannot read the uploaded source ${objectPath} from the object store: ${why}`, {
        cause: err,
      });
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
  await cp(path, into, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (from) => !skipped.has(from.split(sep).at(-1)!) || from === path,
  });
}

/** Whether `path` is `dir` or inside it. */
const isInside = (dir: string, path: string): boolean => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && rel !== '..');
};

/** The source's langgraph.json, checked by the agent server's own loader, its graph files present. */
export function checkConfig(sourceDir: string, configPath: string): { configFile: string; config: AgentServerConfig } {
  const configFile = resolve(sourceDir, configPath);
  if (!isInside(sourceDir, configFile))
    throw new BuildError(`the config path "${configPath}" leads outside the source`);
  if (!existsSync(configFile))
    throw new BuildError(
      `the source has no ${configPath} (langgraph_config_path names the langgraph.json, relative to the source's root)`,
    );
  let config: AgentServerConfig;
  try {
    config = loadAgentConfig(configFile);
  } catch (err) {
    throw new BuildError(`${configPath}: ${(err as Error).message}`, { cause: err });
  }
  for (const graph of config.graphs) {
    if (!existsSync(graph.file))
      throw new BuildError(
        `${configPath}: graph "${graph.graphId}" names ${relative(config.dir, graph.file)}, which is not in the source`,
      );
  }
  return { configFile, config };
}

/** How a build step's command is run: in the revision's sandbox, or as it is (sandbox.ts). */
export type CommandRunner = (command: SandboxedCommand) => SpawnPlan;

/** Runs the command as it is, in the environment given (no sandbox). */
export const unsandboxed: CommandRunner = (command) => ({ ...command });

export interface InstallOptions {
  /** The deployment's own install command (a shell command line); `npm install --no-audit --no-fund` when absent. */
  installCommand?: string;
  /** The environment of the install (PATH with the platform's Node first, HOME for npm's cache). */
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Where the command runs: the revision's sandbox, or as it is. */
  runner?: CommandRunner;
  onOutput?: RunOptions['onOutput'];
}

/** Runs a build step's command through the runner; a failure is a BuildError naming `what`. */
async function runStep(what: string, command: SandboxedCommand, options: InstallOptions): Promise<void> {
  const plan = (options.runner ?? unsandboxed)(command);
  try {
    await run(plan.file, plan.args, {
      cwd: plan.cwd,
      env: plan.env,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      onOutput: options.onOutput,
    });
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw new BuildError(`${what} failed: ${(err as Error).message}`, { cause: err });
  }
}

/** Installs the source's packages when it has a package.json at its root (where the control plane runs install_command). */
export async function installPackages(sourceDir: string, options: InstallOptions): Promise<boolean> {
  if (!existsSync(join(sourceDir, 'package.json')) && !options.installCommand) return false;
  const [file, args] = options.installCommand
    ? ['/bin/sh', ['-c', options.installCommand]]
    : ['npm', ['install', '--no-audit', '--no-fund']];
  const what = options.installCommand ? `the install command "${options.installCommand}"` : '"npm install"';
  await runStep(what, { file, args: args as string[], cwd: sourceDir, env: options.env }, options);
  return true;
}

/** Runs the deployment's build command (source_config.build_command) where its langgraph.json lives. */
export async function runBuildCommand(
  configDir: string,
  buildCommand: string,
  options: Omit<InstallOptions, 'installCommand'>,
): Promise<void> {
  await runStep(
    `the build command "${buildCommand}"`,
    { file: '/bin/sh', args: ['-c', buildCommand], cwd: configDir, env: options.env },
    options,
  );
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
  gitRules: GitSourceRules = { localAllowed: true, hosts: new OutboundHostPolicy() },
  onOutput?: RunOptions['onOutput'],
): Promise<Omit<PreparedSource, 'config' | 'configFile'>> {
  const sourceDir = join(revisionDir, 'src');
  await mkdir(dirname(sourceDir), { recursive: true });
  switch (source.kind) {
    case 'git':
      return {
        sourceDir,
        commitSha: await cloneGit(source.repoUrl, source.ref, sourceDir, limits, gitRules, signal, onOutput),
      };
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
