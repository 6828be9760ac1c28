// Deployments and their revisions, folded from the deployments topic in every process that needs
// them: the control plane (what GET returns, and the checks of commands) and, later, the
// deployer (which revisions to roll out). The topic has one partition, so every process folds the
// same events in the same order and reaches the same state.
//
// Fold rules (deterministic; no clocks, so replicas agree without talking to each other). An
// event whose precondition does not hold where it lands in the topic is ignored, so that racing
// commands are decided by the topic's order, never by which replica looked first:
// - a deployment is created once, and only while no live deployment of its workspace has the name;
// - revisions and source_config updates apply only to an active deployment (not AWAITING_DELETE);
// - a soft delete is final: the deployment stays AWAITING_DELETE until it is removed;
// - the deletion of its tracing project is recorded only for a deployment soft-deleted with
//   delete_tracing_project, once;
// - a removal applies only to an AWAITING_DELETE deployment; the first one wins (removedBy).
import type { EventLogConfig } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { FoldedTopic } from '../../platform/kafka/topicState.ts';
import { TOPICS } from '../../schemas/topics.ts';
import type { DecodedEvent } from '../../schemas/registry.ts';
import type {
  DeploymentCreated,
  DeploymentRemoved,
  DeploymentSoftDeleted,
  DeploymentStatusChanged,
  DeploymentTracingProjectDeleted,
  DeploymentUpdated,
  RevisionCreated,
  RevisionStatusChanged,
} from '../../schemas/events.generated.ts';
import type { DeploymentStatus, RevisionStatus, ServerAuth } from './deploymentTypes.ts';

/** Kafka key of a deployment's events (its revisions' too). */
export const deploymentEventKey = (tenantId: string, deploymentId: string): string =>
  `${tenantId}/deployment/${deploymentId}`;

export interface Revision {
  readonly id: string;
  readonly deploymentId: string;
  readonly source: string;
  readonly sourceRevisionConfig: Readonly<Record<string, unknown>>;
  /** Sealed by SecretBox: opened only by the deployer (and by a PATCH that keeps a value). */
  readonly secrets: string;
  readonly secretNames: readonly string[];
  readonly createdAt: number;
  updatedAt: number;
  status: RevisionStatus;
  /** Why it failed, for a *_FAILED status. */
  detail: string | null;
  /** Where its agent server listens, once DEPLOYED (the gateway forwards the deployment's URL there). */
  serverUrl: string | null;
  /** The commit a github revision was built from, once fetched (the contract's repo_commit_sha). */
  commitSha: string | null;
  /** How its agent server authenticates callers, once DEPLOYED (null: deployed before this was recorded, api_key). */
  serverAuth: ServerAuth | null;
}

export interface Deployment {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly source: string;
  sourceConfig: Record<string, unknown>;
  readonly createdAt: number;
  updatedAt: number;
  status: DeploymentStatus;
  deleteTracingProject: boolean;
  /** Whether its tracing project is deleted (asked for by deleteTracingProject; done once its servers stop). */
  tracingProjectDeleted: boolean;
  /** Newest first. */
  readonly revisions: Revision[];
  activeRevisionId: string | null;
}

class TenantDeployments {
  /** Live deployments (active or AWAITING_DELETE), in creation order. */
  readonly deployments = new Map<string, Deployment>();
  /** Removed deployments: which removal took effect (read back by racing force deletes). */
  readonly removedBy = new Map<string, string>();
}

export class DeploymentState extends FoldedTopic {
  readonly #tenants = new Map<string, TenantDeployments>();
  /** Live deployments by id alone (ids are made by the control plane: unique across workspaces). */
  readonly #byId = new Map<string, Deployment>();
  readonly #listeners = new Set<() => void>();

  constructor(config: EventLogConfig, logger: Logger) {
    super(config, TOPICS.deployments, 'deployments', logger);
  }

  /** Calls `listener` after each folded event (the deployment worker wakes on it); returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  override readonly apply = (e: DecodedEvent): void => {
    this.#fold(e);
    for (const listener of this.#listeners) listener();
  };

  #fold(e: DecodedEvent): void {
    switch (e.name) {
      case 'DeploymentCreated':
        return this.#created(e.payload);
      case 'RevisionCreated':
        return this.#revisionCreated(e.payload);
      case 'RevisionStatusChanged':
        return this.#revisionStatusChanged(e.payload);
      case 'DeploymentUpdated':
        return this.#updated(e.payload);
      case 'DeploymentStatusChanged':
        return this.#statusChanged(e.payload);
      case 'DeploymentSoftDeleted':
        return this.#softDeleted(e.payload);
      case 'DeploymentTracingProjectDeleted':
        return this.#tracingProjectDeleted(e.payload);
      case 'DeploymentRemoved':
        return this.#removed(e.payload);
    }
  }

  #tenant(tenantId: string): TenantDeployments {
    let t = this.#tenants.get(tenantId);
    if (!t) this.#tenants.set(tenantId, (t = new TenantDeployments()));
    return t;
  }

  /** The deployment, when it exists and is not soft-deleted. */
  #active(tenantId: string, deploymentId: string): Deployment | undefined {
    const d = this.#tenants.get(tenantId)?.deployments.get(deploymentId);
    return d && d.status !== 'AWAITING_DELETE' ? d : undefined;
  }

  #created(p: DeploymentCreated): void {
    const t = this.#tenant(p.tenant_id);
    if (t.deployments.has(p.deployment_id) || t.removedBy.has(p.deployment_id)) return;
    for (const d of t.deployments.values()) if (d.name === p.name) return;
    const deployment: Deployment = {
      id: p.deployment_id,
      tenantId: p.tenant_id,
      name: p.name,
      source: p.source,
      sourceConfig: JSON.parse(p.source_config) as Record<string, unknown>,
      createdAt: p.created_at,
      updatedAt: p.created_at,
      status: 'AWAITING_DATABASE',
      deleteTracingProject: false,
      tracingProjectDeleted: false,
      revisions: [],
      activeRevisionId: null,
    };
    t.deployments.set(p.deployment_id, deployment);
    this.#byId.set(p.deployment_id, deployment);
  }

  #revisionCreated(p: RevisionCreated): void {
    const d = this.#active(p.tenant_id, p.deployment_id);
    if (!d || d.revisions.some((r) => r.id === p.revision_id)) return;
    d.revisions.unshift({
      id: p.revision_id,
      deploymentId: p.deployment_id,
      source: p.source,
      sourceRevisionConfig: JSON.parse(p.source_revision_config) as Record<string, unknown>,
      secrets: p.secrets,
      secretNames: p.secret_names,
      createdAt: p.created_at,
      updatedAt: p.created_at,
      status: 'CREATING',
      detail: null,
      serverUrl: null,
      commitSha: null,
      serverAuth: null,
    });
    d.updatedAt = p.created_at;
  }

  #revisionStatusChanged(p: RevisionStatusChanged): void {
    const d = this.#tenants.get(p.tenant_id)?.deployments.get(p.deployment_id);
    const r = d?.revisions.find((x) => x.id === p.revision_id);
    if (!d || !r) return;
    r.status = p.status as RevisionStatus;
    r.detail = p.detail;
    r.updatedAt = p.changed_at;
    if (p.server_url !== null) r.serverUrl = p.server_url;
    if (p.repo_commit_sha !== null) r.commitSha = p.repo_commit_sha;
    if (p.server_auth !== null) r.serverAuth = p.server_auth as ServerAuth;
    if (p.status === 'DEPLOYED') d.activeRevisionId = r.id;
  }

  #updated(p: DeploymentUpdated): void {
    const d = this.#active(p.tenant_id, p.deployment_id);
    if (!d) return;
    d.sourceConfig = { ...d.sourceConfig, ...(JSON.parse(p.source_config_changes) as Record<string, unknown>) };
    d.updatedAt = p.updated_at;
  }

  #statusChanged(p: DeploymentStatusChanged): void {
    const d = this.#active(p.tenant_id, p.deployment_id);
    if (!d || p.status === 'AWAITING_DELETE') return;
    d.status = p.status as DeploymentStatus;
    d.updatedAt = p.changed_at;
  }

  #softDeleted(p: DeploymentSoftDeleted): void {
    const d = this.#active(p.tenant_id, p.deployment_id);
    if (!d) return;
    d.status = 'AWAITING_DELETE';
    d.deleteTracingProject = p.delete_tracing_project;
    d.updatedAt = p.deleted_at;
  }

  #tracingProjectDeleted(p: DeploymentTracingProjectDeleted): void {
    const d = this.#tenants.get(p.tenant_id)?.deployments.get(p.deployment_id);
    if (!d || d.status !== 'AWAITING_DELETE' || !d.deleteTracingProject || d.tracingProjectDeleted) return;
    d.tracingProjectDeleted = true;
  }

  #removed(p: DeploymentRemoved): void {
    const t = this.#tenants.get(p.tenant_id);
    const d = t?.deployments.get(p.deployment_id);
    if (!t || !d || d.status !== 'AWAITING_DELETE') return;
    t.deployments.delete(p.deployment_id);
    this.#byId.delete(p.deployment_id);
    t.removedBy.set(p.deployment_id, p.removal_id);
  }

  // ---- reads ----

  /** A live deployment (active or AWAITING_DELETE) of the workspace. */
  deployment(tenantId: string, id: string): Deployment | undefined {
    return this.#tenants.get(tenantId)?.deployments.get(id);
  }

  /** A live deployment of any workspace, by id (the deployment gateway's lookup: the agent server checks the caller). */
  deploymentById(id: string): Deployment | undefined {
    return this.#byId.get(id);
  }

  /** The workspace's live deployments, newest first. */
  deployments(tenantId: string): Deployment[] {
    return [...(this.#tenants.get(tenantId)?.deployments.values() ?? [])].reverse();
  }

  /** Every workspace's live deployments, in creation order (the deployment worker's view). */
  allDeployments(): Deployment[] {
    return [...this.#tenants.values()].flatMap((t) => [...t.deployments.values()]);
  }

  /** Which removal (DeploymentRemoved.removal_id) removed the deployment; undefined while it is not removed. */
  removedBy(tenantId: string, id: string): string | undefined {
    return this.#tenants.get(tenantId)?.removedBy.get(id);
  }

  /** Everything folded, as plain data: equal for two folds of the same topic. */
  snapshot(): unknown {
    return [...this.#tenants].map(([tenantId, t]) => ({
      tenantId,
      deployments: [...t.deployments.values()],
      removedBy: [...t.removedBy],
    }));
  }
}
