// The local deployer: a revision of a deployment becomes an agent-server child process on this
// machine, without Docker (contract §6.4). deploy() builds (fetch the source into a fresh
// directory, check its langgraph.json with the agent server's loader, install its packages, run
// its build command) and deploys (start the server, wait for /ok), reporting each revision status
// it passes through and every line the build and the server write; the running server is then
// supervised (agentServerProcess.ts) until stop(), which ends it and removes its directory. The
// deployment's commands and its server run in the revision's sandbox (sandbox.ts), reaching out
// through its egress proxy only (egressProxy.ts); the server listens on a Unix socket in the
// revision's directory, bridged to a loopback port (its URL). No Kafka, no HTTP API: the caller
// turns the reported events into the control plane's events.
import { chmod, mkdir, rm, rmdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from '../../../platform/logger.ts';
import { createLogger } from '../../../platform/logger.ts';
import { OutboundHostPolicy } from '../../../platform/outboundHostPolicy.ts';
import { AGENT_SERVER_ENTRY } from '../../agent-server/index.ts';
import { AgentServerProcess } from './agentServerProcess.ts';
import { EgressProxy } from './egressProxy.ts';
import type {
  DeployerEvent,
  DeployerRevisionStatus,
  DeployOutcome,
  RevisionSpec,
  SourceUploads,
} from './revisionSpec.ts';
import {
  revisionPaths,
  Sandbox,
  SANDBOX_PROXY_ENV,
  type RevisionPaths,
  type SandboxMode,
  type SandboxedCommand,
} from './sandbox.ts';
import { bridgeToSocket, type SocketBridge } from './socketBridge.ts';
import {
  BuildError,
  checkConfig,
  fetchSource,
  installPackages,
  linkPlatformPackages,
  runBuildCommand,
  type BuildLimits,
  type CommandRunner,
  type GitSourceRules,
} from './sourcePreparation.ts';

export interface LocalDeployerOptions {
  /** Each revision works in `<rootDir>/<deploymentId>/<revisionId>/` (the source in `src/`, its sockets in `run/`). */
  rootDir: string;
  /**
   * The environment every server starts from: where it traces (LANGSMITH_ENDPOINT, …) and has its
   * callers' keys verified (LANGSMITH_AUTH_ENDPOINT), or AGENT_SERVER_AUTH. The deployer's own
   * environment is not passed on, so the platform's secrets stay with it.
   */
  baseEnv: Record<string, string>;
  onEvent(event: DeployerEvent): void;
  /** Where `upload` sources (internal_source tarballs) are read from; without it they fail to build. */
  uploads?: SourceUploads;
  /** The packages a source without its own resolves against; the platform's node_modules by default. */
  platformNodeModules?: string;
  /** The Node that runs servers and installs; this process's by default (Node 24). */
  nodePath?: string;
  /** Where deployments' commands run (sandbox.ts); `bwrap` by default. */
  sandbox?: SandboxMode;
  /**
   * What deployed code may reach through its egress proxy besides public addresses: host rules
   * (outboundHostPolicy.ts), the platform endpoints its server needs among them; and what never.
   */
  egress?: { allowed?: string; denied?: string };
  /** Where git sources may come from, asked at each build (sourceLocations.ts); anything by default. */
  gitRules?: () => GitSourceRules;
  logger?: Logger;
  fetchTimeoutMs?: number;
  installTimeoutMs?: number;
  healthTimeoutMs?: number;
  stopGraceMs?: number;
}

const DEFAULTS = { fetchTimeoutMs: 120_000, installTimeoutMs: 600_000, healthTimeoutMs: 60_000, stopGraceMs: 10_000 };

/** The platform's own node_modules and checkout, from services/deployments/deployer/. */
const PLATFORM_ROOT = resolve(import.meta.dirname, '../../..');
const PLATFORM_NODE_MODULES = join(PLATFORM_ROOT, 'node_modules');
/** The first program of a sandbox: it opens the egress bridge, then runs the command. */
const SANDBOX_ENTRY = join(import.meta.dirname, 'sandboxEntry.ts');

interface Revision {
  spec: RevisionSpec;
  paths: RevisionPaths;
  /** Ends the build's commands and the wait for /ok when the revision is stopped mid-way. */
  abort: AbortController;
  egress?: EgressProxy;
  bridge?: SocketBridge;
  server?: AgentServerProcess;
  /** Settles when deploy() has finished with this revision, however it ended. */
  deployed?: Promise<DeployOutcome>;
}

export class LocalDeployer {
  readonly #options: Required<Omit<LocalDeployerOptions, 'uploads' | 'sandbox' | 'egress' | 'gitRules' | 'logger'>>;
  readonly #uploads: SourceUploads | undefined;
  readonly #sandbox: Sandbox;
  readonly #egress: OutboundHostPolicy;
  readonly #gitRules: () => GitSourceRules;
  readonly #logger: Logger;
  readonly #revisions = new Map<string, Revision>();

  constructor(options: LocalDeployerOptions) {
    const { uploads, sandbox = 'bwrap', egress = {}, gitRules, logger, ...rest } = options;
    this.#options = { platformNodeModules: PLATFORM_NODE_MODULES, nodePath: process.execPath, ...DEFAULTS, ...rest };
    this.#uploads = uploads;
    this.#sandbox = new Sandbox({ mode: sandbox, platformRoot: PLATFORM_ROOT, nodePath: this.#options.nodePath });
    this.#egress = new OutboundHostPolicy(egress);
    this.#gitRules = gitRules ?? (() => ({ localAllowed: true, hosts: new OutboundHostPolicy() }));
    this.#logger = logger ?? createLogger('local-deployer', 'warn');
  }

  /** The revisions this deployer runs or is deploying, with the URL and pid of the running ones. */
  revisions(): { deploymentId: string; revisionId: string; url?: string; pid?: number }[] {
    return [...this.#revisions.values()].map(({ spec, server }) => ({
      deploymentId: spec.deploymentId,
      revisionId: spec.revisionId,
      url: server?.url,
      pid: server?.pid,
    }));
  }

  /**
   * Builds and starts one revision; resolves with DEPLOYED and the server's URL, or with the
   * failure and its message (its directory removed). Never rejects for a problem of the revision.
   */
  deploy(spec: RevisionSpec): Promise<DeployOutcome> {
    if (this.#revisions.has(spec.revisionId)) throw new Error(`revision ${spec.revisionId} is already deployed here`);
    const revision: Revision = {
      spec,
      paths: revisionPaths(resolve(this.#options.rootDir, spec.deploymentId, spec.revisionId)),
      abort: new AbortController(),
    };
    this.#revisions.set(spec.revisionId, revision);
    revision.deployed = this.#deploy(revision);
    return revision.deployed;
  }

  /** Stops a revision's server (SIGTERM, SIGKILL after the grace) and removes its directory; mid-build, ends the build. */
  async stop(revisionId: string): Promise<void> {
    const revision = this.#revisions.get(revisionId);
    if (!revision) return;
    revision.abort.abort();
    await revision.deployed?.catch(() => undefined);
    await revision.server?.stop();
    await this.#closeWays(revision);
    await this.#removeDirectory(revision);
    this.#revisions.delete(revisionId);
  }

  /** Closes the revision's bridge and egress proxy (its server is stopped). */
  async #closeWays(revision: Revision): Promise<void> {
    await Promise.all([revision.bridge?.close(), revision.egress?.close()]);
    revision.bridge = undefined;
    revision.egress = undefined;
  }

  /** Stops every revision. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#revisions.keys()].map((id) => this.stop(id)));
  }

  async #deploy(revision: Revision): Promise<DeployOutcome> {
    const { spec, paths } = revision;
    const ref = { deploymentId: spec.deploymentId, revisionId: spec.revisionId };
    const status = (
      s: DeployerRevisionStatus,
      extra: { message?: string; url?: string; commitSha?: string; serverAuth?: 'api_key' | 'custom' } = {},
    ) => {
      this.#log(revision, 'build', 'deployer', `${s}${extra.message ? `: ${extra.message}` : ''}\n`);
      this.#options.onEvent({ type: 'status', ...ref, status: s, ...extra });
    };
    const fail = async (s: 'BUILD_FAILED' | 'DEPLOY_FAILED', message: string): Promise<DeployOutcome> => {
      await revision.server?.stop();
      await this.#closeWays(revision);
      await this.#removeDirectory(revision);
      this.#revisions.delete(spec.revisionId);
      status(s, { message });
      return { status: s, message };
    };
    const stoppedMessage = 'the deployment was stopped before this revision was deployed';

    status('AWAITING_BUILD');
    const problem = this.#sandbox.problem();
    if (problem) return fail('BUILD_FAILED', problem);
    let prepared: { sourceDir: string; configFile: string; commitSha?: string; serverAuth: 'api_key' | 'custom' };
    try {
      await Promise.all([
        rm(paths.dir, { recursive: true, force: true }),
        rm(paths.runDir, { recursive: true, force: true }),
      ]);
      await mkdir(paths.dir, { recursive: true });
      await mkdir(paths.runDir, { mode: 0o700 });
      status('BUILDING');
      revision.egress = new EgressProxy({
        socketPath: join(paths.runDir, 'egress.sock'),
        policy: this.#egress,
        logger: this.#logger,
        revision: ref,
      });
      await revision.egress.start();
      // The sandbox's user connects to it.
      await chmod(join(paths.runDir, 'egress.sock'), 0o666);
      prepared = await this.#build(revision);
    } catch (err) {
      if (revision.abort.signal.aborted) return fail('BUILD_FAILED', stoppedMessage);
      // Anything but a BuildError is ours (a full disk, a bug): said as it is, still a failed build.
      const message =
        err instanceof BuildError ? err.message : `the build failed unexpectedly: ${(err as Error).message}`;
      return fail('BUILD_FAILED', message);
    }

    status('AWAITING_DEPLOY', { commitSha: prepared.commitSha });
    if (revision.abort.signal.aborted) return fail('DEPLOY_FAILED', stoppedMessage);
    status('DEPLOYING', { commitSha: prepared.commitSha });
    const socket = join(paths.runDir, 'server.sock');
    let server: AgentServerProcess;
    try {
      // The port is the bridge's from the start: no other program can take it before the server listens.
      revision.bridge = await bridgeToSocket(socket, '127.0.0.1');
      server = new AgentServerProcess({
        spawn: this.#serverCommand(revision, socket, prepared),
        url: `http://127.0.0.1:${revision.bridge.port}`,
        logFile: join(paths.dir, 'agent-server.log'),
        healthTimeoutMs: this.#options.healthTimeoutMs,
        stopGraceMs: this.#options.stopGraceMs,
        onOutput: (text, stream) => this.#log(revision, 'deploy', stream, text),
        onExited: (exit) => this.#options.onEvent({ type: 'process_exited', ...ref, ...exit }),
        onRestarted: (pid) => this.#options.onEvent({ type: 'process_restarted', ...ref, pid, url: server.url }),
        onGivenUp: (message) => this.#options.onEvent({ type: 'process_given_up', ...ref, message }),
      });
    } catch (err) {
      return fail('DEPLOY_FAILED', `cannot open the revision's port: ${(err as Error).message}`);
    }
    revision.server = server;
    const onAbort = () => void server.stop();
    revision.abort.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await server.start();
    } catch (err) {
      if (revision.abort.signal.aborted) return fail('DEPLOY_FAILED', stoppedMessage);
      const tail = server.outputTail();
      return fail('DEPLOY_FAILED', `${(err as Error).message}${tail ? `. Its last output:\n${tail}` : ''}`);
    } finally {
      revision.abort.signal.removeEventListener('abort', onAbort);
    }
    status('DEPLOYED', { url: server.url, commitSha: prepared.commitSha, serverAuth: prepared.serverAuth });
    return {
      status: 'DEPLOYED',
      url: server.url,
      pid: server.pid!,
      commitSha: prepared.commitSha,
      serverAuth: prepared.serverAuth,
    };
  }

  #log(revision: Revision, kind: 'build' | 'deploy', stream: 'stdout' | 'stderr' | 'deployer', text: string): void {
    this.#options.onEvent({
      type: 'log',
      deploymentId: revision.spec.deploymentId,
      revisionId: revision.spec.revisionId,
      kind,
      stream,
      text,
    });
  }

  async #build(
    revision: Revision,
  ): Promise<{ sourceDir: string; configFile: string; commitSha?: string; serverAuth: 'api_key' | 'custom' }> {
    const { spec, paths, abort } = revision;
    const limits: BuildLimits = {
      fetchTimeoutMs: this.#options.fetchTimeoutMs,
      installTimeoutMs: this.#options.installTimeoutMs,
    };
    const onOutput = (text: string, stream: 'stdout' | 'stderr') => this.#log(revision, 'build', stream, text);
    const { sourceDir, commitSha } = await fetchSource(
      spec.source,
      paths.dir,
      limits,
      abort.signal,
      this.#uploads,
      this.#gitRules(),
      onOutput,
    );
    // From here on the revision's directory is its sandbox user's.
    await this.#sandbox.prepare(paths, spec.deploymentId);
    const { configFile, config } = checkConfig(sourceDir, spec.source.configPath ?? 'langgraph.json');
    const step = {
      env: this.#commandEnv(revision, spec.env),
      timeoutMs: limits.installTimeoutMs,
      signal: abort.signal,
      runner: this.#runner(revision),
      onOutput,
    };
    await installPackages(sourceDir, { ...step, installCommand: spec.installCommand });
    if (spec.buildCommand) await runBuildCommand(dirname(configFile), spec.buildCommand, step);
    await linkPlatformPackages(paths.dir, this.#options.platformNodeModules);
    abort.signal.throwIfAborted(); // a step without a command to end, e.g. the config check, does not look
    return { sourceDir, configFile, commitSha, serverAuth: config.auth ? 'custom' : 'api_key' };
  }

  /** Runs a build command of the revision in its sandbox, through the sandbox entry (which opens its egress bridge). */
  #runner(revision: Revision): CommandRunner {
    return (command: SandboxedCommand) => {
      if (this.#sandbox.mode === 'none') return this.#sandbox.plan(command, revision.paths, revision.spec.deploymentId);
      const egress = join(revision.paths.runDir, 'egress.sock');
      const entry = {
        ...command,
        file: this.#options.nodePath,
        args: [SANDBOX_ENTRY, egress, 'exec', command.file, ...command.args],
      };
      return this.#sandbox.plan(entry, revision.paths, revision.spec.deploymentId);
    };
  }

  /** How the revision's agent server is started: the platform's entry point, in the sandbox. */
  #serverCommand(revision: Revision, socket: string, prepared: { sourceDir: string; configFile: string }) {
    const env = {
      ...this.#options.baseEnv,
      ...revision.spec.env,
      ...revision.spec.secrets,
      ...platformEnv(revision.spec, socket, prepared.configFile, this.#path()),
      ...this.#proxyEnv(),
    };
    const args =
      this.#sandbox.mode === 'none'
        ? [AGENT_SERVER_ENTRY]
        : [SANDBOX_ENTRY, join(revision.paths.runDir, 'egress.sock'), 'module', AGENT_SERVER_ENTRY];
    return this.#sandbox.plan(
      { file: this.#options.nodePath, args, cwd: prepared.sourceDir, env },
      revision.paths,
      revision.spec.deploymentId,
    );
  }

  /** The environment of the revision's build commands. */
  #commandEnv(_revision: Revision, env: Record<string, string>): Record<string, string> {
    return { PATH: this.#path(), ...env, ...this.#proxyEnv() };
  }

  /** Inside a sandbox, every HTTP client goes through the egress bridge (Node's own included: NODE_USE_ENV_PROXY). */
  #proxyEnv(): Readonly<Record<string, string>> {
    return this.#sandbox.mode === 'none' ? {} : SANDBOX_PROXY_ENV;
  }

  /** PATH with the platform's Node first, so `npm`, package scripts and the server all run on it. */
  #path(): string {
    const system =
      this.#sandbox.mode === 'none'
        ? (this.#options.baseEnv.PATH ?? process.env.PATH ?? '')
        : '/usr/local/bin:/usr/bin:/bin';
    return [dirname(this.#options.nodePath), system].filter(Boolean).join(':');
  }

  async #removeDirectory(revision: Revision): Promise<void> {
    await rm(revision.paths.runDir, { recursive: true, force: true });
    await rm(revision.paths.dir, { recursive: true, force: true });
    // The deployment's folder goes with its last revision.
    await rmdir(dirname(revision.paths.dir)).catch(() => undefined);
  }
}

/**
 * What the platform sets in a server's environment, over the deployment's env and secrets
 * (contract §5; the control plane refuses these names as secrets: RESERVED_ENV_NAMES): where it
 * listens, what it serves, its own key (it traces with it into the deployment's project, in the
 * deployment's workspace) and the workspace it serves. Checkpoints stay in the process's memory:
 * a revision shares no state with another (durable per-deployment storage is a later step).
 */
export function platformEnv(
  spec: RevisionSpec,
  socket: string,
  configFile: string,
  path: string,
): Record<string, string> {
  return {
    PATH: path,
    AGENT_SERVER_SOCKET: socket,
    AGENT_SERVER_CONFIG: configFile,
    AGENT_SERVER_CHECKPOINTER: 'memory',
    LANGSMITH_API_KEY: spec.apiKey,
    LANGSMITH_TENANT_ID: spec.tenantId,
    LANGSMITH_PROJECT: spec.deploymentName,
    LANGCHAIN_PROJECT: spec.deploymentName,
    LANGSMITH_DEPLOYMENT_NAME: spec.deploymentName,
    LANGSMITH_HOST_PROJECT_ID: spec.deploymentId,
    LANGSMITH_HOST_PROJECT_NAME: spec.deploymentName,
    LANGSMITH_HOST_REVISION_ID: spec.revisionId,
  };
}
