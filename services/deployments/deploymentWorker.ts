// The deployment worker: moves revisions on from QUEUED by running them with the local deployer,
// and reports every status back through the command side (DeploymentCommands.recordRevisionStatus).
// It follows the fold of the deployments topic and reconciles after each change:
// - per deployment, one revision at a time: the newest pending revision (QUEUED, or left
//   mid-way by a control plane that ended) is deployed; older pending ones become SKIPPED;
// - rollout: the new revision's server starts and answers /ok, the deployment switches to it
//   (active_revision_id and the server the gateway forwards its URL to, READY), then, after a
//   drain period, the previous server stops; a revision that fails leaves the previous one serving;
// - a soft-deleted deployment (AWAITING_DELETE) has its servers stopped and directories removed,
//   then, when the delete asked for it, its tracing project deleted (once: the deletion is recorded);
// - a server the deployer gives up on (it kept crashing) makes its deployment UNKNOWN;
// - at start, every deployment's active revision is started again (re-adopted): the servers of a
//   control plane that ended went with it (each ends when its IPC channel closes), and its port
//   changes, so its server URL is recorded anew (the deployment's URL stays: deploymentGateway.ts).
// What is built: `github` revisions (repo_url + repo_ref + langgraph_config_path) and
// `internal_source` ones (the tarball uploaded at source_tarball_path; one without it waits QUEUED
// for its upload). Sources that are images (external_docker, internal_docker) or templates end
// DEPLOY_FAILED at once with the reason: this machine runs revisions as processes, without Docker.
// Their soft delete still deletes the tracing project when asked.
import type { Logger } from '../../platform/logger.ts';
import { retry, type RetryPolicy } from '../../platform/retry.ts';
import type { SecretBox } from '../../platform/secretBox.ts';
import type { DeploymentCommands } from './deploymentCommands.ts';
import type { Deployment, DeploymentState, Revision } from './deploymentState.ts';
import { LOCALLY_DEPLOYED_SOURCES, type DeploymentSecret, type RevisionStatus } from './deploymentTypes.ts';
import { LocalDeployer, type LocalDeployerOptions } from './deployer/localDeployer.ts';
import { deploymentUrl } from './deploymentGateway.ts';
import type { DeployerEvent, RevisionSource, RevisionSpec } from './deployer/revisionSpec.ts';

/**
 * Deleting a tracing project (the projects topic, through the tracing context): from 500 ms,
 * doubling to 30 s apart, until done or the worker closes (the next start does it then).
 */
const TRACING_PROJECT_DELETION_RETRY: RetryPolicy = {
  initialDelayMs: 500,
  backoffCoefficient: 2,
  maxDelayMs: 30_000,
  maxAttempts: Infinity,
};

/** The tracing context's project deletion (its ProjectCommands), as the worker uses it. */
export interface TracingProjectDeletion {
  /** Deletes the workspace's project of that name; its id, or null when there is none. */
  deleteNamed(tenantId: string, name: string): Promise<string | null>;
}

/**
 * The keys deployed servers run with (tenancy's issueDeploymentKey): one per revision started, in
 * the deployment's workspace; revoked once no server of this deployer uses it.
 */
export interface DeploymentKeys {
  /** A new key (not issued yet). */
  generate(): string;
  issue(tenantId: string, deploymentId: string, revisionId: string, key: string): Promise<void>;
  /** Revokes every key of the deployment but `keep` (keys themselves); how many it revoked. */
  revoke(deploymentId: string, keep: string[]): Promise<number>;
  /** The deployments that have keys still acting somewhere. */
  holders(): Set<string>;
}

/** Where the deployer's output goes (revisionLogs.ts). */
export interface RevisionLogSink {
  append(
    ref: { tenantId: string; deploymentId: string; revisionId: string },
    kind: 'build' | 'deploy',
    stream: 'stdout' | 'stderr' | 'deployer',
    text: string,
  ): void;
  forget(ref: { tenantId: string; deploymentId: string; revisionId: string }): Promise<void>;
}

/** Revoking keys and the like: from 500 ms, doubling to 30 s apart, until done or the worker closes. */
const KEY_REVOCATION_RETRY: RetryPolicy = TRACING_PROJECT_DELETION_RETRY;

/** Statuses of a revision that has not reached its end: a worker that is not running it should. */
const PENDING: ReadonlySet<RevisionStatus> = new Set([
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
]);

export interface DeploymentWorkerOptions {
  state: DeploymentState;
  commands: DeploymentCommands;
  /** Opens the revisions' sealed secrets; null when SECRETS_ENCRYPTION_KEY is unset. */
  secrets: SecretBox | null;
  logger: Logger;
  /** The control plane's base URL as clients reach it: a deployment's URL is the gateway's (deploymentGateway.ts). */
  publicUrl: string;
  /**
   * How long a replaced server keeps running after the switch, for requests routed to it just
   * before, or by a replica whose fold is a moment behind. Default 5 s.
   */
  drainMs?: number;
  /** The local deployer's settings, but its event sink (the worker's). */
  deployer: Omit<LocalDeployerOptions, 'onEvent'>;
  /** Deletes the tracing project of a deployment deleted with delete_tracing_project; null: never deleted. */
  tracingProjects: TracingProjectDeletion | null;
  /** Issues and revokes the keys deployed servers run with. */
  keys: DeploymentKeys;
  /** Where build and deploy logs go; none: they are not kept. */
  logs?: RevisionLogSink;
}

/** Why a revision's source cannot run on this machine (it ends DEPLOY_FAILED), or null when it can. */
function unsupportedSourceProblem(source: string): string | null {
  if (LOCALLY_DEPLOYED_SOURCES.has(source)) return null;
  return (
    `this control plane cannot run ${source} revisions: it runs each revision from its source as a local agent-server ` +
    'process, without Docker or Kubernetes. Create a deployment with source github (a repo_url git can clone) or ' +
    'internal_source (a tarball uploaded through POST …/upload-url) instead'
  );
}

/** An internal_source revision without its tarball: it waits QUEUED until a newer revision brings one. */
const waitsForUpload = (r: Revision): boolean =>
  r.source === 'internal_source' && typeof r.sourceRevisionConfig.source_tarball_path !== 'string';

/** The revision spec of a revision, or why it fails (BUILD_FAILED unless `status` says otherwise). */
export function revisionSpecOf(
  d: Deployment,
  r: Revision,
  secrets: DeploymentSecret[],
  publicUrl: string,
  apiKey: string,
): RevisionSpec | { problem: string; status?: 'BUILD_FAILED' | 'DEPLOY_FAILED' } {
  const unsupported = unsupportedSourceProblem(r.source);
  if (unsupported) return { problem: unsupported, status: 'DEPLOY_FAILED' };
  const configPath = r.sourceRevisionConfig.langgraph_config_path ?? 'langgraph.json';
  if (typeof configPath !== 'string') return { problem: 'source_revision_config.langgraph_config_path must be a path' };
  let source: RevisionSource;
  if (r.source === 'github') {
    const repoUrl = d.sourceConfig.repo_url;
    const ref = r.sourceRevisionConfig.repo_ref;
    if (typeof repoUrl !== 'string' || repoUrl === '')
      return { problem: 'source_config.repo_url is not set: a github deployment needs the repository to build' };
    if (typeof ref !== 'string' || ref === '')
      return { problem: 'source_revision_config.repo_ref is not set: name a branch or a tag ref (refs/tags/v1)' };
    // A redeploy builds the commit the revision it redeploys was built from (a real rollback).
    const pinned = r.sourceRevisionConfig.repo_commit_sha;
    source = {
      kind: 'git',
      repoUrl,
      ref: typeof pinned === 'string' && /^[0-9a-f]{40}$/i.test(pinned) ? pinned : ref,
      configPath,
    };
  } else {
    const objectPath = r.sourceRevisionConfig.source_tarball_path;
    if (typeof objectPath !== 'string')
      return { problem: 'source_revision_config.source_tarball_path is not set: upload the source first' };
    source = { kind: 'upload', objectPath, configPath };
  }
  const command = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
  const installCommand = command(d.sourceConfig.install_command);
  const buildCommand = command(d.sourceConfig.build_command);
  return {
    deploymentId: d.id,
    revisionId: r.id,
    deploymentName: d.name,
    tenantId: d.tenantId,
    source,
    apiKey,
    ...(installCommand ? { installCommand } : {}),
    ...(buildCommand ? { buildCommand } : {}),
    // Agent cards and links name the deployment's URL, not the revision's port.
    env: { USER_API_URL: deploymentUrl(publicUrl, d.id) },
    secrets: Object.fromEntries(secrets.map((s) => [s.name, s.value])),
  };
}

export class DeploymentWorker {
  readonly #state: DeploymentState;
  readonly #commands: DeploymentCommands;
  readonly #secrets: SecretBox | null;
  readonly #logger: Logger;
  readonly #deployer: LocalDeployer;
  readonly #publicUrl: string;
  readonly #drainMs: number;
  readonly #tracingProjects: TracingProjectDeletion | null;
  readonly #keys: DeploymentKeys;
  readonly #logs: RevisionLogSink | undefined;
  /**
   * Per deployment, per revision this deployer runs (or is starting), the key its server runs
   * with; a key is in here before it is issued, so a revocation running meanwhile keeps it.
   */
  readonly #revisionKeys = new Map<string, Map<string, string>>();
  /** Ends the retries of a closing worker. */
  readonly #closed = new AbortController();
  /** Deployments with a rollout or a teardown under way (one at a time each). */
  readonly #busy = new Set<string>();
  /** Per deployment, the revision whose server serves it here. */
  readonly #serving = new Map<string, string>();
  /** Deployments whose servers are stopped for good (soft-deleted). */
  readonly #tornDown = new Set<string>();
  /** Per revision, its reports in order (appends are chained so the topic keeps the deployer's order). */
  readonly #reports = new Map<string, Promise<void>>();
  /** Revisions being re-adopted: their build statuses are not reported again (they stay DEPLOYED), only the new URL. */
  readonly #readopting = new Set<string>();
  /** Deployments whose rollout a soft delete has asked to end. */
  readonly #interrupted = new Set<string>();
  #unsubscribe: (() => void) | undefined;
  #closing = false;
  #scheduled = false;

  constructor(options: DeploymentWorkerOptions) {
    this.#state = options.state;
    this.#commands = options.commands;
    this.#secrets = options.secrets;
    this.#logger = options.logger;
    this.#publicUrl = options.publicUrl;
    this.#drainMs = options.drainMs ?? 5_000;
    this.#deployer = new LocalDeployer({ ...options.deployer, onEvent: (e) => this.#onDeployerEvent(e) });
    this.#tracingProjects = options.tracingProjects;
    this.#keys = options.keys;
    this.#logs = options.logs;
  }

  /** Starts following the fold (already caught up): re-adopts the active revisions, then deploys what is queued. */
  start(): void {
    this.#unsubscribe = this.#state.onChange(() => this.#schedule());
    // Keys of deployments removed while no control plane ran (their servers went with it).
    const live = new Set(this.#state.allDeployments().map((d) => d.id));
    for (const id of this.#keys.holders()) if (!live.has(id)) this.#run(id, () => this.#revokeUnusedKeys(id));
    for (const d of this.#state.allDeployments()) {
      if (d.status === 'AWAITING_DELETE' || !d.activeRevisionId) continue;
      const active = d.revisions.find((r) => r.id === d.activeRevisionId);
      // First, even when a newer revision is pending (rolled out next): should that one fail, this one serves.
      if (active?.status === 'DEPLOYED') this.#run(d.id, () => this.#rollout(d.tenantId, d.id, active.id, true));
    }
    this.#schedule();
  }

  /** The servers this worker runs: deployment, revision, URL and pid (for tests and logs). */
  running(): { deploymentId: string; revisionId: string; url?: string; pid?: number }[] {
    return this.#deployer.revisions();
  }

  /** Stops following the fold and stops every server (their revisions stay as they are: the next start re-adopts them). */
  async close(): Promise<void> {
    this.#closing = true;
    this.#closed.abort();
    this.#unsubscribe?.();
    await this.#deployer.stopAll();
  }

  #schedule(): void {
    if (this.#scheduled || this.#closing) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#reconcile();
    });
  }

  #reconcile(): void {
    if (this.#closing) return;
    const live = this.#state.allDeployments();
    // A deployment removed (force-deleted) before its teardown: its servers go all the same.
    const liveIds = new Set(live.map((d) => d.id));
    for (const x of this.#deployer.revisions())
      if (!liveIds.has(x.deploymentId) && !this.#busy.has(x.deploymentId))
        this.#run(x.deploymentId, () => this.#tearDown(x.deploymentId));
    for (const d of live) {
      if (this.#busy.has(d.id)) {
        // Soft-deleted mid-rollout: end the build or start now rather than after it (the teardown follows).
        if (d.status === 'AWAITING_DELETE' && !this.#interrupted.has(d.id)) {
          this.#interrupted.add(d.id);
          for (const x of this.#deployer.revisions())
            if (x.deploymentId === d.id && x.revisionId !== this.#serving.get(d.id))
              void this.#deployer.stop(x.revisionId);
        }
        continue;
      }
      if (d.status === 'AWAITING_DELETE') {
        if (!this.#tornDown.has(d.id)) this.#run(d.id, () => this.#tearDown(d.id));
        continue;
      }
      const pending = d.revisions.filter((r) => PENDING.has(r.status));
      if (pending.length === 0) continue;
      const [newest, ...older] = pending; // revisions are newest first
      const waits = waitsForUpload(newest!);
      if (waits && older.length === 0) continue; // nothing to do until its source comes
      this.#run(d.id, async () => {
        for (const r of older)
          await this.#commands.recordRevisionStatus(d.tenantId, d.id, r.id, {
            status: 'SKIPPED',
            detail: `revision ${newest!.id} was queued after it`,
          });
        if (!waits) await this.#rollout(d.tenantId, d.id, newest!.id, false);
      });
    }
  }

  /** Runs one task of a deployment, then looks again at what the fold asks for. */
  #run(deploymentId: string, task: () => Promise<void>): void {
    this.#busy.add(deploymentId);
    task()
      .catch((err: unknown) => this.#logger.error({ err, deploymentId }, 'deployment task failed'))
      .finally(() => {
        this.#busy.delete(deploymentId);
        this.#schedule();
      });
  }

  /** Deploys a revision; once it serves, it replaces the deployment's previous server. */
  async #rollout(tenantId: string, deploymentId: string, revisionId: string, readopt: boolean): Promise<void> {
    const d = this.#state.deployment(tenantId, deploymentId);
    const r = d?.revisions.find((x) => x.id === revisionId);
    if (!d || !r) return;
    let spec: ReturnType<typeof revisionSpecOf>;
    let secrets: DeploymentSecret[];
    try {
      secrets = this.#openSecrets(r.secrets);
    } catch (err) {
      await this.#commands.recordRevisionStatus(tenantId, deploymentId, revisionId, {
        status: 'BUILD_FAILED',
        detail: `the revision's secrets cannot be opened: ${(err as Error).message}`,
      });
      return;
    }
    const problem = revisionSpecOf(d, r, secrets, this.#publicUrl, '');
    if ('problem' in problem) {
      await this.#commands.recordRevisionStatus(tenantId, deploymentId, revisionId, {
        status: problem.status ?? 'BUILD_FAILED',
        detail: problem.problem,
      });
      return;
    }
    // Its own key, in its workspace only: a new one at each start (a redeploy rotates it).
    const apiKey = this.#keys.generate();
    const keys = this.#revisionKeys.get(deploymentId) ?? new Map<string, string>();
    this.#revisionKeys.set(deploymentId, keys.set(revisionId, apiKey));
    await this.#keys.issue(tenantId, deploymentId, revisionId, apiKey);
    spec = revisionSpecOf(d, r, secrets, this.#publicUrl, apiKey);
    if ('problem' in spec) return;
    this.#logger.info(
      { deploymentId, revisionId, readopt },
      readopt ? 're-adopting the active revision' : 'deploying a revision',
    );
    if (readopt) this.#readopting.add(revisionId);
    const outcome = await this.#deployer.deploy(spec);
    await this.#reports.get(revisionId);
    this.#reports.delete(revisionId);
    this.#readopting.delete(revisionId);
    if (outcome.status !== 'DEPLOYED' || this.#closing) {
      if (!this.#closing) await this.#forgetKey(deploymentId, revisionId);
      return;
    }
    const previous = this.#serving.get(deploymentId);
    this.#serving.set(deploymentId, revisionId);
    // The keys of servers that no longer run (a re-adopted revision's key of before the restart).
    await this.#revokeUnusedKeys(deploymentId);
    // The switch is folded here; the old server drains before it stops (the gateway's note), in the
    // background: the next rollout need not wait for it, and a teardown or close stops it anyway.
    if (previous && previous !== revisionId)
      setTimeout(() => {
        this.#deployer
          .stop(previous)
          .then(() => this.#forgetKey(deploymentId, previous))
          .catch((err: unknown) =>
            this.#logger.error({ err, deploymentId, revisionId: previous }, 'cannot stop a replaced server'),
          );
      }, this.#drainMs).unref();
    // Soft-deleted while it was starting: the teardown (after this task) stops it.
  }

  /** A revision of the deployment stopped (or never started): its key is revoked with the others no server uses. */
  async #forgetKey(deploymentId: string, revisionId: string): Promise<void> {
    this.#revisionKeys.get(deploymentId)?.delete(revisionId);
    await this.#revokeUnusedKeys(deploymentId);
  }

  /** Revokes the deployment's keys but those of the revisions this deployer runs or is starting (all, once it runs none). */
  async #revokeUnusedKeys(deploymentId: string): Promise<void> {
    const keys = this.#revisionKeys.get(deploymentId);
    if (keys?.size === 0) this.#revisionKeys.delete(deploymentId);
    const revoked = await retry(
      KEY_REVOCATION_RETRY,
      () => this.#keys.revoke(deploymentId, [...(keys?.values() ?? [])]),
      {
        what: `revoke the unused keys of deployment ${deploymentId}`,
        logger: this.#logger,
        signal: this.#closed.signal,
      },
    );
    if (revoked > 0) this.#logger.info({ deploymentId, revoked }, 'deployment keys revoked');
  }

  async #tearDown(deploymentId: string): Promise<void> {
    const revisions = this.#deployer.revisions().filter((x) => x.deploymentId === deploymentId);
    await Promise.all(revisions.map((x) => this.#deployer.stop(x.revisionId)));
    this.#serving.delete(deploymentId);
    this.#revisionKeys.delete(deploymentId);
    await this.#revokeUnusedKeys(deploymentId);
    this.#logger.info({ deploymentId, stopped: revisions.length }, 'soft-deleted deployment torn down');
    // After the servers have stopped (each sends its queued traces before it ends), so none of
    // them makes the project again by tracing into its name.
    const d = this.#state.allDeployments().find((x) => x.id === deploymentId);
    if (d?.status === 'AWAITING_DELETE' && d.deleteTracingProject && !d.tracingProjectDeleted)
      await this.#deleteTracingProject(d);
    this.#tornDown.add(deploymentId);
  }

  /** Deletes the project named after the deployment, in its workspace, and records that it did (so it is done once). */
  async #deleteTracingProject(d: Deployment): Promise<void> {
    const tracingProjects = this.#tracingProjects;
    if (!tracingProjects) return;
    const patiently = <T>(what: string, attempt: () => Promise<T>) =>
      retry(TRACING_PROJECT_DELETION_RETRY, attempt, { what, logger: this.#logger, signal: this.#closed.signal });
    const projectId = await patiently(`delete the tracing project of deployment ${d.id}`, () =>
      tracingProjects.deleteNamed(d.tenantId, d.name),
    );
    await patiently(`record that the tracing project of deployment ${d.id} is deleted`, () =>
      this.#commands.recordTracingProjectDeleted(d.tenantId, d.id, projectId),
    );
    const message = projectId ? 'tracing project deleted' : 'no tracing project to delete';
    this.#logger.info({ deploymentId: d.id, projectId, name: d.name }, message);
  }

  #openSecrets(sealed: string): DeploymentSecret[] {
    if (sealed === '') return [];
    if (!this.#secrets) throw new Error('SECRETS_ENCRYPTION_KEY is not set');
    return this.#secrets.open<DeploymentSecret[]>(sealed);
  }

  #onDeployerEvent(e: DeployerEvent): void {
    if (this.#closing) return; // a stop at shutdown is no failure of the revision: the next start deploys it again
    if (e.type === 'log') {
      const d = this.#state.allDeployments().find((x) => x.id === e.deploymentId);
      if (d)
        this.#logs?.append(
          { tenantId: d.tenantId, deploymentId: e.deploymentId, revisionId: e.revisionId },
          e.kind,
          e.stream,
          e.text,
        );
      return;
    }
    if (e.type === 'process_exited' || e.type === 'process_restarted') {
      this.#logger.warn({ ...e }, `deployed agent server: ${e.type}`);
      return;
    }
    if (
      e.type === 'status' &&
      this.#readopting.has(e.revisionId) &&
      e.status !== 'DEPLOYED' &&
      !e.status.endsWith('_FAILED')
    )
      return;
    const d = this.#state.allDeployments().find((x) => x.id === e.deploymentId);
    if (!d) return;
    const record =
      e.type === 'status'
        ? () =>
            this.#commands.recordRevisionStatus(d.tenantId, e.deploymentId, e.revisionId, {
              status: e.status,
              detail: e.message ?? null,
              url: e.url,
              commitSha: e.commitSha,
              serverAuth: e.serverAuth,
            })
        : () => {
            this.#logger.error({ ...e }, 'deployed agent server given up');
            return this.#commands.recordServerLost(d.tenantId, e.deploymentId, e.revisionId);
          };
    const previous = this.#reports.get(e.revisionId) ?? Promise.resolve();
    const next = previous.then(record).then(
      () => undefined,
      (err: unknown) =>
        this.#logger.error(
          { err, event: e.type, revisionId: e.revisionId },
          'cannot record what the deployer reported',
        ),
    );
    this.#reports.set(e.revisionId, next);
  }
}
