// The local deployer: a revision of a deployment becomes an agent-server child process on this
// machine, without Docker (contract §6.4). deploy() builds (fetch the source into a fresh
// directory, check its langgraph.json with the agent server's loader, install its packages) and
// deploys (start the server on a free loopback port, wait for /ok), reporting each revision
// status it passes through; the running server is then supervised (agentServerProcess.ts) until
// stop(), which ends it and removes its directory. No Kafka, no HTTP: the caller turns the
// reported events into the control plane's events.
import { createServer } from 'node:net';
import { mkdir, rm, rmdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { CANNOT_START_EXIT_CODE } from '../../../platform/cannotStart.ts';
import { AGENT_SERVER_ENTRY } from '../../agent-server/index.ts';
import { AgentServerProcess } from './agentServerProcess.ts';
import type { DeployerEvent, DeployerRevisionStatus, DeployOutcome, RevisionSpec, SourceUploads } from './revisionSpec.ts';
import { BuildError, checkConfig, fetchSource, installPackages, linkPlatformPackages, type BuildLimits } from './sourcePreparation.ts';

export interface LocalDeployerOptions {
  /** Each revision works in `<rootDir>/<deploymentId>/<revisionId>/` (the source in `src/`, the server's log beside it). */
  rootDir: string;
  /**
   * The environment every server starts from: where its API keys live (KAFKA_BROKERS,
   * KAFKA_TOPIC_PREFIX) or AGENT_SERVER_AUTH, where it traces (LANGSMITH_ENDPOINT, …). The
   * deployer's own environment is not passed on, so the platform's secrets stay with it.
   */
  baseEnv: Record<string, string>;
  onEvent(event: DeployerEvent): void;
  /** Where `upload` sources (internal_source tarballs) are read from; without it they fail to build. */
  uploads?: SourceUploads;
  /** The packages a source without its own resolves against; the platform's node_modules by default. */
  platformNodeModules?: string;
  /** The Node that runs servers and installs; this process's by default (Node 24). */
  nodePath?: string;
  fetchTimeoutMs?: number;
  installTimeoutMs?: number;
  healthTimeoutMs?: number;
  stopGraceMs?: number;
}

/** How many free ports a start tries when the one it picked is taken before the server binds it. */
const PORT_ATTEMPTS = 3;

const DEFAULTS = { fetchTimeoutMs: 120_000, installTimeoutMs: 600_000, healthTimeoutMs: 60_000, stopGraceMs: 10_000 };

/** The platform's own node_modules, from services/deployments/deployer/. */
const PLATFORM_NODE_MODULES = resolve(import.meta.dirname, '../../../node_modules');

/** A free TCP port on the loopback interface. */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

interface Revision {
  spec: RevisionSpec;
  dir: string;
  /** Ends the build's commands and the wait for /ok when the revision is stopped mid-way. */
  abort: AbortController;
  server?: AgentServerProcess;
  /** Settles when deploy() has finished with this revision, however it ended. */
  deployed?: Promise<DeployOutcome>;
}

export class LocalDeployer {
  readonly #options: Required<Omit<LocalDeployerOptions, 'uploads'>>;
  readonly #uploads: SourceUploads | undefined;
  readonly #revisions = new Map<string, Revision>();

  constructor(options: LocalDeployerOptions) {
    const { uploads, ...rest } = options;
    this.#options = { platformNodeModules: PLATFORM_NODE_MODULES, nodePath: process.execPath, ...DEFAULTS, ...rest };
    this.#uploads = uploads;
  }

  /** The revisions this deployer runs or is deploying, with the URL and pid of the running ones. */
  revisions(): { deploymentId: string; revisionId: string; url?: string; pid?: number }[] {
    return [...this.#revisions.values()].map(({ spec, server }) => ({ deploymentId: spec.deploymentId, revisionId: spec.revisionId, url: server?.url, pid: server?.pid }));
  }

  /**
   * Builds and starts one revision; resolves with DEPLOYED and the server's URL, or with the
   * failure and its message (its directory removed). Never rejects for a problem of the revision.
   */
  deploy(spec: RevisionSpec): Promise<DeployOutcome> {
    if (this.#revisions.has(spec.revisionId)) throw new Error(`revision ${spec.revisionId} is already deployed here`);
    const revision: Revision = { spec, dir: resolve(this.#options.rootDir, spec.deploymentId, spec.revisionId), abort: new AbortController() };
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
    await this.#removeDirectory(revision);
    this.#revisions.delete(revisionId);
  }

  /** Stops every revision. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#revisions.keys()].map((id) => this.stop(id)));
  }

  async #deploy(revision: Revision): Promise<DeployOutcome> {
    const { spec } = revision;
    const status = (s: DeployerRevisionStatus, extra: { message?: string; url?: string; commitSha?: string } = {}) =>
      this.#options.onEvent({ type: 'status', deploymentId: spec.deploymentId, revisionId: spec.revisionId, status: s, ...extra });
    const fail = async (s: 'BUILD_FAILED' | 'DEPLOY_FAILED', message: string): Promise<DeployOutcome> => {
      await this.#removeDirectory(revision);
      this.#revisions.delete(spec.revisionId);
      status(s, { message });
      return { status: s, message };
    };
    const stoppedMessage = 'the deployment was stopped before this revision was deployed';

    status('AWAITING_BUILD');
    let prepared: { sourceDir: string; configFile: string; commitSha?: string };
    try {
      await rm(revision.dir, { recursive: true, force: true });
      await mkdir(revision.dir, { recursive: true });
      status('BUILDING');
      prepared = await this.#build(revision);
    } catch (err) {
      if (revision.abort.signal.aborted) return fail('BUILD_FAILED', stoppedMessage);
      // Anything but a BuildError is ours (a full disk, a bug): said as it is, still a failed build.
      const message = err instanceof BuildError ? err.message : `the build failed unexpectedly: ${(err as Error).message}`;
      return fail('BUILD_FAILED', message);
    }

    status('AWAITING_DEPLOY', { commitSha: prepared.commitSha });
    if (revision.abort.signal.aborted) return fail('DEPLOY_FAILED', stoppedMessage);
    status('DEPLOYING', { commitSha: prepared.commitSha });
    const ref = { deploymentId: spec.deploymentId, revisionId: spec.revisionId };
    let server: AgentServerProcess;
    // A free port can be taken by another program before the server binds it (it then exits 78):
    // another port is tried, a few times.
    for (let attempt = 1; ; attempt++) {
      const port = await freeLoopbackPort();
      const candidate = new AgentServerProcess({
        entry: AGENT_SERVER_ENTRY,
        nodePath: this.#options.nodePath,
        port,
        env: this.#serverEnv(spec, port, prepared.configFile),
        cwd: prepared.sourceDir,
        logFile: join(revision.dir, 'agent-server.log'),
        healthTimeoutMs: this.#options.healthTimeoutMs,
        stopGraceMs: this.#options.stopGraceMs,
        onExited: (exit) => this.#options.onEvent({ type: 'process_exited', ...ref, ...exit }),
        onRestarted: (pid) => this.#options.onEvent({ type: 'process_restarted', ...ref, pid, url: candidate.url }),
        onGivenUp: (message) => this.#options.onEvent({ type: 'process_given_up', ...ref, message }),
      });
      revision.server = candidate;
      const onAbort = () => void candidate.stop();
      revision.abort.signal.addEventListener('abort', onAbort, { once: true });
      try {
        await candidate.start();
        server = candidate;
        break;
      } catch (err) {
        revision.server = undefined;
        if (revision.abort.signal.aborted) return fail('DEPLOY_FAILED', stoppedMessage);
        if ((err as { exitCode?: number }).exitCode === CANNOT_START_EXIT_CODE && attempt < PORT_ATTEMPTS) continue;
        const tail = candidate.outputTail();
        return fail('DEPLOY_FAILED', `${(err as Error).message}${tail ? `. Its last output:\n${tail}` : ''}`);
      } finally {
        revision.abort.signal.removeEventListener('abort', onAbort);
      }
    }
    status('DEPLOYED', { url: server.url, commitSha: prepared.commitSha });
    return { status: 'DEPLOYED', url: server.url, pid: server.pid!, commitSha: prepared.commitSha };
  }

  async #build(revision: Revision): Promise<{ sourceDir: string; configFile: string; commitSha?: string }> {
    const { spec, dir, abort } = revision;
    const limits: BuildLimits = { fetchTimeoutMs: this.#options.fetchTimeoutMs, installTimeoutMs: this.#options.installTimeoutMs };
    const { sourceDir, commitSha } = await fetchSource(spec.source, dir, limits, abort.signal, this.#uploads);
    const { configFile } = checkConfig(sourceDir, spec.source.configPath ?? 'langgraph.json');
    await installPackages(sourceDir, {
      installCommand: spec.installCommand,
      env: { PATH: this.#path(), HOME: process.env.HOME ?? dir, ...spec.env },
      timeoutMs: limits.installTimeoutMs,
      signal: abort.signal,
    });
    await linkPlatformPackages(dir, this.#options.platformNodeModules);
    abort.signal.throwIfAborted(); // a step without a command to end, e.g. the config check, does not look
    return { sourceDir, configFile, commitSha };
  }

  /** PATH with the platform's Node first, so `npm`, package scripts and the server all run on it. */
  #path(): string {
    return [dirname(this.#options.nodePath), this.#options.baseEnv.PATH ?? process.env.PATH ?? ''].filter(Boolean).join(':');
  }

  /**
   * base env < the deployment's env < its secrets < what the platform sets (platformEnv).
   * langgraph.json's own `env` is applied by the agent server, under all of these.
   */
  #serverEnv(spec: RevisionSpec, port: number, configFile: string): Record<string, string> {
    return { ...this.#options.baseEnv, ...spec.env, ...spec.secrets, ...platformEnv(spec, port, configFile, this.#path()) };
  }

  async #removeDirectory(revision: Revision): Promise<void> {
    await rm(revision.dir, { recursive: true, force: true });
    // The deployment's folder goes with its last revision.
    await rmdir(dirname(revision.dir)).catch(() => undefined);
  }
}

/**
 * What the platform sets in a server's environment, over the deployment's env and secrets
 * (contract §5; the control plane refuses these names as secrets: RESERVED_ENV_NAMES).
 * Checkpoints stay in the process's memory: a revision shares no state with another (durable
 * per-deployment storage is the control plane's later step).
 */
export function platformEnv(spec: RevisionSpec, port: number, configFile: string, path: string): Record<string, string> {
  return {
    PATH: path,
    HOST: '127.0.0.1',
    PORT: String(port),
    AGENT_SERVER_PORT: String(port),
    AGENT_SERVER_CONFIG: configFile,
    AGENT_SERVER_CHECKPOINTER: 'memory',
    LANGSMITH_PROJECT: spec.deploymentName,
    LANGCHAIN_PROJECT: spec.deploymentName,
    LANGSMITH_DEPLOYMENT_NAME: spec.deploymentName,
    LANGSMITH_HOST_PROJECT_ID: spec.deploymentId,
    LANGSMITH_HOST_PROJECT_NAME: spec.deploymentName,
    LANGSMITH_HOST_REVISION_ID: spec.revisionId,
    LANGSMITH_TENANT_ID: spec.tenantId,
  };
}
