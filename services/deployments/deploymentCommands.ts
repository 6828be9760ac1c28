// The control plane's commands: create a deployment, patch it (a new revision when its revision
// config, secrets or resource_spec change), redeploy an older revision (a new revision with its
// config and secrets), soft delete it, force delete it. Each checks against
// the folded state, appends its events to the deployments topic, then waits until the state has
// folded them and reads back what took effect, so the answer is what GET returns next. The
// deployment worker reports its revisions' progress through recordRevisionStatus, decided the same way.
//
// Single writer without a lock: the topic has one partition, and the fold ignores an event whose
// precondition does not hold where it lands (deploymentState.ts). Two replicas may both pass the
// check and both append; the topic's order decides, and each command answers from the outcome:
// - a revision appended after a soft delete never exists: the PATCH answers 400 (404 once removed);
// - of two force deletes, the removal folded first wins (removedBy): its caller gets 204, the
//   other 404, as if they had come one after the other;
// - of two creates with one name, the first folded wins; the other answers 409.
import { randomUUID } from 'node:crypto';
import { errors } from '../../platform/errors.ts';
import { event, type EventLog, type EventToAppend } from '../../platform/kafka/eventLog.ts';
import type { SecretBox } from '../../platform/secretBox.ts';
import { nowMicros } from '../../platform/time.ts';
import { deploymentEventKey, type Deployment, type DeploymentState } from './deploymentState.ts';
import { SECRET_VALUE_MASK, type DeploymentSecret, type RevisionStatus, type ServerAuth } from './deploymentTypes.ts';
import { uploadPathProblem } from './sourceUploads.ts';
import type { SourceLocationPolicy } from './sourceLocations.ts';

/** Statuses a revision never leaves: the worker's late reports about it change nothing. */
const FINAL_REVISION_STATUSES: ReadonlySet<RevisionStatus> = new Set([
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'SKIPPED',
  'INTERRUPTED',
]);

export interface NewDeployment {
  name: string;
  source: string;
  sourceConfig: Record<string, unknown>;
  sourceRevisionConfig: Record<string, unknown>;
  secrets: DeploymentSecret[];
}

/** A revision about to be appended: its source and config, its sealed secrets and their names. */
interface NewRevision {
  source: string;
  config: Record<string, unknown>;
  secrets: string;
  names: string[];
  detail?: string | null;
}

export interface DeploymentPatch {
  sourceConfig: Record<string, unknown> | null;
  sourceRevisionConfig: Record<string, unknown> | null;
  secrets: DeploymentSecret[] | null;
  revisionSource: string | null;
}

/** source_config fields fixed at creation (contract §2.3): a PATCH may repeat them, not change them. */
const FIXED_SOURCE_CONFIG = [
  'integration_id',
  'repo_url',
  'deployment_type',
  'listener_id',
  'listener_config',
] as const;

const notFound = (id: string) => errors.notFound(`Deployment ID ${id}`);
const beingDeleted = (id: string) =>
  errors.badRequest(
    `Deployment ID ${id} is AWAITING_DELETE (soft-deleted): it cannot be changed; only DELETE ?force=true applies to it`,
  );

/** What the QUEUED status of an internal_source revision without its tarball says to do. */
const awaitingUpload = (deploymentId: string) =>
  `waiting for its source: POST /v2/deployments/${deploymentId}/upload-url, PUT the .tar.gz to its upload_url, then PATCH ` +
  'the deployment with revision_source internal_source and source_revision_config.source_tarball_path = its object_path';

/**
 * Why a revision of `source` cannot have `config` (a 400), or null. A source_tarball_path belongs to
 * an internal_source revision and must be an upload of the workspace (never another tenant's).
 */
function revisionConfigProblem(tenantId: string, source: string, config: Record<string, unknown>): string | null {
  const tarball = config.source_tarball_path;
  if (tarball === undefined) return null;
  if (source !== 'internal_source')
    return (
      'source_revision_config.source_tarball_path is for internal_source revisions; ' +
      `this revision's source is ${source}`
    );
  return uploadPathProblem(tenantId, String(tarball));
}

/** What a new revision's QUEUED status says, or null. */
const queuedDetail = (deploymentId: string, source: string, config: Record<string, unknown>): string | null =>
  source === 'internal_source' && config.source_tarball_path === undefined ? awaitingUpload(deploymentId) : null;

/**
 * Without repo_commit_sha, which is read-only (the contract's): a client may send back what it
 * read. The control plane sets it on a redeploy's revision, which builds that commit.
 */
const withoutReadOnly = (config: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const { repo_commit_sha: _readOnly, ...rest } = config;
  return rest;
};

/** The non-null fields of an object (a PATCH's null means "leave as it is"). */
const setFields = (o: Record<string, unknown> | null): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== null && v !== undefined));

export class DeploymentCommands {
  readonly #state: DeploymentState;
  readonly #log: EventLog;
  readonly #secrets: SecretBox | null;
  /** Where github sources may come from (sourceLocations.ts); null: anywhere (the deployer checks again). */
  readonly #sources: SourceLocationPolicy | null;

  constructor(
    state: DeploymentState,
    log: EventLog,
    secrets: SecretBox | null,
    sources: SourceLocationPolicy | null = null,
  ) {
    this.#state = state;
    this.#log = log;
    this.#secrets = secrets;
    this.#sources = sources;
  }

  /** A github deployment's repo_url, refused (400) where the control plane does not build from. */
  #checkRepoUrl(source: string, sourceConfig: Record<string, unknown>): void {
    const repoUrl = sourceConfig.repo_url;
    if (source !== 'github' || typeof repoUrl !== 'string' || !this.#sources) return;
    const problem = this.#sources.problem(repoUrl);
    if (problem) throw errors.badRequest(problem);
  }

  /** Secrets sealed for the topic; an empty list needs no key (and is stored as an empty string). */
  #seal(secrets: DeploymentSecret[]): string {
    if (secrets.length === 0) return '';
    if (!this.#secrets)
      throw errors.notConfigured(
        'deployment secrets need SECRETS_ENCRYPTION_KEY (32 bytes, hex or base64) to encrypt them',
      );
    return this.#secrets.seal(secrets);
  }

  #open(sealed: string): DeploymentSecret[] {
    if (sealed === '') return [];
    if (!this.#secrets)
      throw errors.notConfigured(
        'deployment secrets need SECRETS_ENCRYPTION_KEY (32 bytes, hex or base64) to decrypt them',
      );
    return this.#secrets.open<DeploymentSecret[]>(sealed);
  }

  /**
   * A new revision, CREATING then QUEUED; `detail` is what its QUEUED status says (where it comes
   * from), else why it waits, if it does.
   */
  #revisionEvents(tenantId: string, deploymentId: string, revision: NewRevision) {
    const { source, config, secrets, names } = revision;
    const key = deploymentEventKey(tenantId, deploymentId);
    const revisionId = randomUUID();
    const at = nowMicros();
    const ids = { tenant_id: tenantId, deployment_id: deploymentId, revision_id: revisionId };
    // CREATING, then QUEUED for the deployer, which moves it on from there.
    const events: EventToAppend[] = [
      event('RevisionCreated', key, {
        ...ids,
        source,
        source_revision_config: JSON.stringify(config),
        secrets,
        secret_names: names,
        created_at: at,
      }),
      event('RevisionStatusChanged', key, {
        ...ids,
        status: 'QUEUED',
        detail: revision.detail ?? queuedDetail(deploymentId, source, config),
        server_url: null,
        changed_at: at,
        repo_commit_sha: null,
        server_auth: null,
      }),
    ];
    return { revisionId, events };
  }

  async create(tenantId: string, d: NewDeployment): Promise<Deployment> {
    checkSecretNames(d.secrets);
    if (d.secrets.some((s) => s.value === SECRET_VALUE_MASK))
      throw errors.badRequest('secrets: a new deployment has no stored value to keep; give each value');
    this.#checkRepoUrl(d.source, d.sourceConfig);
    const config = withoutReadOnly(setFields(d.sourceRevisionConfig));
    const problem = revisionConfigProblem(tenantId, d.source, config);
    if (problem) throw errors.badRequest(problem);
    const sealed = this.#seal(d.secrets);
    await this.#state.catchUp();
    const taken = () => this.#state.deployments(tenantId).some((x) => x.name === d.name);
    if (taken()) throw errors.conflict(`a deployment named ${d.name} already exists in this workspace`);
    const id = randomUUID();
    const names = d.secrets.map((s) => s.name);
    const revision = this.#revisionEvents(tenantId, id, { source: d.source, config, secrets: sealed, names });
    await this.#log.append([
      event('DeploymentCreated', deploymentEventKey(tenantId, id), {
        tenant_id: tenantId,
        deployment_id: id,
        name: d.name,
        source: d.source,
        source_config: JSON.stringify(d.sourceConfig),
        created_at: nowMicros(),
      }),
      ...revision.events,
    ]);
    await this.#state.catchUp();
    const created = this.#state.deployment(tenantId, id);
    if (!created) throw errors.conflict(`a deployment named ${d.name} already exists in this workspace`);
    return created;
  }

  async patch(tenantId: string, id: string, p: DeploymentPatch): Promise<Deployment> {
    if (p.secrets) checkSecretNames(p.secrets);
    await this.#state.catchUp();
    const d = this.#state.deployment(tenantId, id);
    if (!d) throw notFound(id);
    if (d.status === 'AWAITING_DELETE') throw beingDeleted(id);
    if (p.revisionSource !== null && p.revisionSource !== d.source)
      throw errors.badRequest(
        `revision_source ${p.revisionSource} is not this deployment's source (${d.source}), which cannot change`,
      );
    const configChanges = setFields(p.sourceConfig);
    for (const field of FIXED_SOURCE_CONFIG)
      if (
        field in configChanges &&
        JSON.stringify(configChanges[field]) !== JSON.stringify(d.sourceConfig[field] ?? null)
      )
        throw errors.badRequest(`source_config.${field} is fixed at creation and cannot be changed`);
    const revisionChanges = withoutReadOnly(setFields(p.sourceRevisionConfig));
    const newRevision =
      Object.keys(revisionChanges).length > 0 || p.secrets !== null || 'resource_spec' in configChanges;

    const key = deploymentEventKey(tenantId, id);
    const events: EventToAppend[] = [];
    if (Object.keys(configChanges).length > 0)
      events.push(
        event('DeploymentUpdated', key, {
          tenant_id: tenantId,
          deployment_id: id,
          source_config_changes: JSON.stringify(configChanges),
          updated_at: nowMicros(),
        }),
      );
    let revisionId: string | null = null;
    if (newRevision) {
      const latest = d.revisions[0];
      let sealed = latest?.secrets ?? '';
      let names = [...(latest?.secretNames ?? [])];
      if (p.secrets) {
        const kept = p.secrets.some((s) => s.value === SECRET_VALUE_MASK)
          ? new Map(this.#open(sealed).map((s) => [s.name, s.value]))
          : new Map<string, string>();
        const secrets = p.secrets.map((s) => {
          if (s.value !== SECRET_VALUE_MASK) return s;
          const value = kept.get(s.name);
          if (value === undefined)
            throw errors.badRequest(`secrets: ${s.name} has no stored value to keep; give its value`);
          return { name: s.name, value };
        });
        sealed = this.#seal(secrets);
        names = secrets.map((s) => s.name);
      }
      // A redeploy's pinned commit is that revision's own, not the next one's.
      const config = { ...withoutReadOnly(latest?.sourceRevisionConfig ?? {}), ...revisionChanges };
      const problem = revisionConfigProblem(tenantId, d.source, config);
      if (problem) throw errors.badRequest(problem);
      const revision = this.#revisionEvents(tenantId, id, { source: d.source, config, secrets: sealed, names });
      revisionId = revision.revisionId;
      events.push(...revision.events);
    }
    if (events.length === 0) return d;
    return this.#appendAndReadBack(tenantId, id, events, revisionId);
  }

  /**
   * Redeploys a revision that was DEPLOYED (a rollback, or a restart of the active one): a new
   * revision with its source_revision_config and its secrets as they were, rolled out like any
   * other. Only a DEPLOYED revision qualifies: one that failed, was skipped or is still on its way
   * never served (400). Its QUEUED status names the revision it redeploys.
   */
  async redeploy(tenantId: string, id: string, revisionId: string): Promise<Deployment> {
    await this.#state.catchUp();
    const d = this.#state.deployment(tenantId, id);
    if (!d) throw notFound(id);
    if (d.status === 'AWAITING_DELETE') throw beingDeleted(id);
    const old = d.revisions.find((r) => r.id === revisionId);
    if (!old) throw errors.notFound(`Revision ID ${revisionId} of deployment ${id}`);
    if (old.status !== 'DEPLOYED')
      throw errors.badRequest(
        `Revision ID ${revisionId} is ${old.status}: only a revision that was DEPLOYED can be redeployed; ` +
          'to deploy its settings anyway, PATCH the deployment with them',
      );
    // Built from the commit the old revision was built from: a real rollback, whatever its ref points at now.
    const pinned = old.commitSha ?? old.sourceRevisionConfig.repo_commit_sha;
    const revision = this.#revisionEvents(tenantId, id, {
      source: old.source,
      config: {
        ...withoutReadOnly(old.sourceRevisionConfig),
        ...(typeof pinned === 'string' ? { repo_commit_sha: pinned } : {}),
      },
      secrets: old.secrets,
      names: [...old.secretNames],
      detail: `redeploys revision ${old.id}`,
    });
    return this.#appendAndReadBack(tenantId, id, revision.events, revision.revisionId);
  }

  /** Appends a PATCH's or redeploy's events, then reads back what took effect. */
  async #appendAndReadBack(
    tenantId: string,
    id: string,
    events: EventToAppend[],
    revisionId: string | null,
  ): Promise<Deployment> {
    await this.#log.append(events);
    await this.#state.catchUp();
    // A soft delete or a removal folded first makes the fold ignore ours.
    const after = this.#state.deployment(tenantId, id);
    if (!after) throw notFound(id);
    if (revisionId !== null && !after.revisions.some((r) => r.id === revisionId)) throw beingDeleted(id);
    return after;
  }

  /** Soft delete: AWAITING_DELETE until the runtime is torn down. Deleting again changes nothing. */
  async softDelete(tenantId: string, id: string, deleteTracingProject: boolean): Promise<void> {
    await this.#state.catchUp();
    const d = this.#state.deployment(tenantId, id);
    if (!d) throw notFound(id);
    if (d.status === 'AWAITING_DELETE') return;
    await this.#log.append([
      event('DeploymentSoftDeleted', deploymentEventKey(tenantId, id), {
        tenant_id: tenantId,
        deployment_id: id,
        delete_tracing_project: deleteTracingProject,
        deleted_at: nowMicros(),
      }),
    ]);
    await this.#state.catchUp();
    if (!this.#state.deployment(tenantId, id)) throw notFound(id);
  }

  /**
   * A revision's new status, as the deployment worker reports it. DEPLOYED comes with the server's
   * URL: the revision becomes the active one (the fold's rule), the deployment gateway forwards the
   * deployment's URL to that server, and the deployment is READY (unless it was soft-deleted meanwhile: the fold ignores those two then).
   * Returns false, appending nothing, when the deployment or revision is gone or the revision has
   * reached a final status (a failure, SKIPPED, INTERRUPTED).
   */
  async recordRevisionStatus(
    tenantId: string,
    deploymentId: string,
    revisionId: string,
    change: {
      status: RevisionStatus;
      detail?: string | null;
      url?: string;
      commitSha?: string;
      serverAuth?: ServerAuth;
    },
  ): Promise<boolean> {
    await this.#state.catchUp();
    const revision = this.#state.deployment(tenantId, deploymentId)?.revisions.find((r) => r.id === revisionId);
    if (!revision || FINAL_REVISION_STATUSES.has(revision.status)) return false;
    if (change.status === 'DEPLOYED' && !change.url) throw new Error('a DEPLOYED revision needs its server URL');
    const key = deploymentEventKey(tenantId, deploymentId);
    const ids = { tenant_id: tenantId, deployment_id: deploymentId };
    const at = nowMicros();
    const events: EventToAppend[] = [
      event('RevisionStatusChanged', key, {
        ...ids,
        revision_id: revisionId,
        status: change.status,
        detail: change.detail ?? null,
        server_url: change.status === 'DEPLOYED' ? change.url! : null,
        changed_at: at,
        repo_commit_sha: change.commitSha ?? null,
        server_auth: change.status === 'DEPLOYED' ? (change.serverAuth ?? null) : null,
      }),
    ];
    if (change.status === 'DEPLOYED')
      events.push(event('DeploymentStatusChanged', key, { ...ids, status: 'READY', changed_at: at }));
    await this.#log.append(events);
    await this.#state.catchUp();
    return true;
  }

  /**
   * The active revision's server is down for good (it kept crashing and the deployer gave up): the
   * deployment becomes UNKNOWN until a revision is DEPLOYED again. Returns false, appending nothing,
   * when the revision is no longer the active one or the deployment is gone or soft-deleted.
   */
  async recordServerLost(tenantId: string, deploymentId: string, revisionId: string): Promise<boolean> {
    await this.#state.catchUp();
    const d = this.#state.deployment(tenantId, deploymentId);
    if (!d || d.status === 'AWAITING_DELETE' || d.activeRevisionId !== revisionId) return false;
    await this.#log.append([
      event('DeploymentStatusChanged', deploymentEventKey(tenantId, deploymentId), {
        tenant_id: tenantId,
        deployment_id: deploymentId,
        status: 'UNKNOWN',
        changed_at: nowMicros(),
      }),
    ]);
    await this.#state.catchUp();
    return true;
  }

  /**
   * The tracing project of a deployment soft-deleted with delete_tracing_project is gone (the
   * deployment worker deleted it, or found none: `projectId` null). Returns false, appending
   * nothing, when the deployment is gone, did not ask for it, or has it recorded already.
   */
  async recordTracingProjectDeleted(
    tenantId: string,
    deploymentId: string,
    projectId: string | null,
  ): Promise<boolean> {
    await this.#state.catchUp();
    const d = this.#state.deployment(tenantId, deploymentId);
    if (!d || d.status !== 'AWAITING_DELETE' || !d.deleteTracingProject || d.tracingProjectDeleted) return false;
    await this.#log.append([
      event('DeploymentTracingProjectDeleted', deploymentEventKey(tenantId, deploymentId), {
        tenant_id: tenantId,
        deployment_id: deploymentId,
        project_id: projectId,
        deleted_at: nowMicros(),
      }),
    ]);
    await this.#state.catchUp();
    return true;
  }

  /** Force delete: removes the control-plane record of an AWAITING_DELETE deployment (400 before a soft delete). */
  async forceDelete(tenantId: string, id: string): Promise<void> {
    await this.#state.catchUp();
    const d = this.#state.deployment(tenantId, id);
    if (!d) throw notFound(id);
    if (d.status !== 'AWAITING_DELETE')
      throw errors.badRequest(
        `Deployment ID ${id} is not soft-deleted (status ${d.status}): DELETE it without force first; force=true only removes a deployment in AWAITING_DELETE`,
      );
    const removalId = randomUUID();
    await this.#log.append([
      event('DeploymentRemoved', deploymentEventKey(tenantId, id), {
        tenant_id: tenantId,
        deployment_id: id,
        removal_id: removalId,
        removed_at: nowMicros(),
      }),
    ]);
    await this.#state.catchUp();
    // Another replica's removal folded first: to this caller the deployment was already gone.
    if (this.#state.removedBy(tenantId, id) !== removalId) throw notFound(id);
  }
}

function checkSecretNames(secrets: DeploymentSecret[]): void {
  const seen = new Set<string>();
  for (const s of secrets) {
    if (seen.has(s.name)) throw errors.badRequest(`secrets: ${s.name} is given twice`);
    seen.add(s.name);
  }
}
