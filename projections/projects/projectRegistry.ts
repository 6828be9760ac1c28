// Projects (sessions), folded from the projects topic in every process that needs them: the
// API (reads, commands, ingestion's project resolution) and the projectors (which projects are
// deleted, so their runs are skipped and removed). The topic has one partition, so every
// replica folds the same events in the same order and reaches the same state.
//
// Fold rules (deterministic, so replicas agree without talking to each other):
// - a creation of a live id only fills what is still empty (racing replicas creating a project
//   by name append the same id; ingestion's creation carries no description, a POST's does);
// - a deleted id stays deleted: later creations and updates of it are ignored;
// - a name belongs to the first live project created with it; a rename to a name another live
//   project holds is ignored as a whole.
import { parseStoredJson } from '../../platform/json/jsonNesting.ts';
import { v5 as uuidv5 } from 'uuid';
import type { EventLogConfig } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { errors } from '../../platform/errors.ts';
import { event, type EventToAppend } from '../../platform/kafka/eventLog.ts';
import { FoldedTopic } from '../../platform/kafka/topicState.ts';
import { TOPICS } from '../../schemas/topics.ts';
import type { DecodedEvent } from '../../schemas/registry.ts';
import type { ProjectCreated, ProjectDeleted, ProjectUpdated } from '../../schemas/events.generated.ts';
import { ID_NAMESPACE } from '../../platform/ids.ts';
import { nowMicros } from '../../platform/time.ts';

export interface Project {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly description: string | null;
  /** The project's extra JSON object (`extra.metadata` is what the metadata filter reads). */
  readonly extra: Readonly<Record<string, unknown>> | null;
  readonly referenceDatasetId: string | null;
  /** Microseconds since the epoch. */
  readonly startTime: number;
  readonly endTime: number | null;
  readonly createdAt: number;
}

export interface ProjectRegistryOptions {
  /**
   * Called once per deleted project when its tombstone is folded, including tombstones folded
   * while start() replays the topic. Runs synchronously inside the fold: keep it short.
   */
  onDeleted?: (tenantId: string, projectId: string) => void;
}

export const DEFAULT_PROJECT_NAME = 'default';

/**
 * The id a project created by name gets: the same in every replica, so racing first uses agree.
 * Generation 0 is the id of earlier releases; after a project of that id is deleted, the name
 * moves to generation 1, and so on (see ProjectRegistry.idForName).
 */
export const projectIdForName = (tenantId: string, name: string, generation = 0): string =>
  uuidv5(
    generation === 0 ? `project:${tenantId}:${name}` : `project-generation:${generation}:${tenantId}:${name}`,
    ID_NAMESPACE,
  );

/** The Kafka key of a project's events. */
export const projectKey = (tenantId: string, projectId: string): string => `${tenantId}/${projectId}`;

/** One workspace's projects. `live` keeps fold order, which decides who holds a name. */
class TenantProjects {
  readonly live = new Map<string, Project>();
  readonly deleted = new Set<string>();
  readonly byName = new Map<string, string>();

  /** Gives `name` to the first live project that has it, when `id` held it. */
  releaseName(name: string, id: string): void {
    if (this.byName.get(name) !== id) return;
    this.byName.delete(name);
    for (const p of this.live.values())
      if (p.name === name && p.id !== id) {
        this.byName.set(name, p.id);
        return;
      }
  }
}

const parseExtra = (json: string | null): Record<string, unknown> | null => {
  if (json === null) return null;
  try {
    const value: unknown = parseStoredJson(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
};

export class ProjectRegistry extends FoldedTopic {
  readonly #tenants = new Map<string, TenantProjects>();
  readonly #onDeleted: ProjectRegistryOptions['onDeleted'];

  constructor(config: EventLogConfig, logger: Logger, options: ProjectRegistryOptions = {}) {
    super(config, TOPICS.projects, 'projects', logger);
    this.#onDeleted = options.onDeleted;
  }

  override readonly apply = (e: DecodedEvent): void => {
    if (e.name === 'ProjectCreated') this.#created(e.payload);
    else if (e.name === 'ProjectUpdated') this.#updated(e.payload);
    else if (e.name === 'ProjectDeleted') this.#deleted(e.payload);
  };

  #tenant(tenantId: string): TenantProjects {
    let t = this.#tenants.get(tenantId);
    if (!t) this.#tenants.set(tenantId, (t = new TenantProjects()));
    return t;
  }

  #created(p: ProjectCreated): void {
    const t = this.#tenant(p.tenant_id);
    if (t.deleted.has(p.project_id)) return;
    const existing = t.live.get(p.project_id);
    if (existing) {
      t.live.set(p.project_id, {
        ...existing,
        description: existing.description ?? p.description,
        extra: existing.extra ?? parseExtra(p.extra),
        referenceDatasetId: existing.referenceDatasetId ?? p.reference_dataset_id,
        endTime: existing.endTime ?? p.end_time,
      });
      return;
    }
    t.live.set(p.project_id, {
      id: p.project_id,
      tenantId: p.tenant_id,
      name: p.name,
      description: p.description,
      extra: parseExtra(p.extra),
      referenceDatasetId: p.reference_dataset_id,
      startTime: p.start_time ?? p.created_at,
      endTime: p.end_time,
      createdAt: p.created_at,
    });
    if (!t.byName.has(p.name)) t.byName.set(p.name, p.project_id);
  }

  #updated(p: ProjectUpdated): void {
    const t = this.#tenant(p.tenant_id);
    const project = t.live.get(p.project_id);
    if (!project) return;
    const rename = p.name !== null && p.name !== project.name;
    if (rename) {
      const holder = t.byName.get(p.name!);
      if (holder !== undefined && holder !== p.project_id) return;
    }
    t.live.set(p.project_id, {
      ...project,
      name: p.name ?? project.name,
      description: p.description ?? project.description,
      extra: p.extra === null ? project.extra : parseExtra(p.extra),
      endTime: p.end_time ?? project.endTime,
    });
    if (rename) {
      t.releaseName(project.name, project.id);
      t.byName.set(p.name!, p.project_id);
    }
  }

  #deleted(p: ProjectDeleted): void {
    const t = this.#tenant(p.tenant_id);
    if (t.deleted.has(p.project_id)) return;
    t.deleted.add(p.project_id);
    const project = t.live.get(p.project_id);
    if (project) {
      t.live.delete(p.project_id);
      t.releaseName(project.name, project.id);
    }
    this.#onDeleted?.(p.tenant_id, p.project_id);
  }

  /** A live project of the workspace; undefined when unknown, deleted, or another workspace's. */
  get(tenantId: string, projectId: string): Project | undefined {
    return this.#tenants.get(tenantId)?.live.get(projectId);
  }

  /** The live project that holds `name` in the workspace. */
  byName(tenantId: string, name: string): Project | undefined {
    const t = this.#tenants.get(tenantId);
    const id = t?.byName.get(name);
    return id === undefined ? undefined : t!.live.get(id);
  }

  /** The workspace's live projects, newest first (start_time, then id). */
  list(tenantId: string): Project[] {
    const live = [...(this.#tenants.get(tenantId)?.live.values() ?? [])];
    return live.sort((a, b) => b.startTime - a.startTime || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }

  isDeleted(tenantId: string, projectId: string): boolean {
    return this.#tenants.get(tenantId)?.deleted.has(projectId) ?? false;
  }

  /** Every tombstoned project, of every workspace. */
  deletedProjects(): Array<{ tenantId: string; projectId: string }> {
    const out: Array<{ tenantId: string; projectId: string }> = [];
    for (const [tenantId, t] of this.#tenants) for (const projectId of t.deleted) out.push({ tenantId, projectId });
    return out;
  }

  /**
   * The id a new project named `name` gets: the first generation whose id no project of the
   * workspace has ever had (live, deleted, or renamed away). Deterministic given the fold, so
   * replicas that have seen the same events agree.
   */
  idForName(tenantId: string, name: string): string {
    const t = this.#tenants.get(tenantId);
    for (let generation = 0; ; generation++) {
      const id = projectIdForName(tenantId, name, generation);
      if (!t || (!t.live.has(id) && !t.deleted.has(id))) return id;
    }
  }

  /**
   * The project a new run goes to: session_id must be a live project (404 otherwise, also when
   * deleted); session_name is created on first use (a deleted project's name gets a fresh
   * project); neither means "default". Adds the creation event to `pending` when one is due.
   */
  async resolve(
    tenantId: string,
    sessionId: string | null,
    sessionName: string | null,
    pending: Map<string, EventToAppend>,
  ): Promise<string> {
    if (sessionId !== null) {
      if (this.get(tenantId, sessionId) || pending.has(sessionId)) return sessionId;
      await this.catchUp();
      if (this.get(tenantId, sessionId)) return sessionId;
      throw errors.notFound(`project (session_id) ${sessionId}`);
    }
    const name = sessionName ?? DEFAULT_PROJECT_NAME;
    let known = this.byName(tenantId, name);
    if (!known && !pending.has(this.idForName(tenantId, name))) {
      // A name unknown here may have been created a moment ago through another replica.
      await this.catchUp();
      known = this.byName(tenantId, name);
    }
    if (known) return known.id;
    const id = this.idForName(tenantId, name);
    if (!pending.has(id)) pending.set(id, projectCreatedEvent(tenantId, id, { name }));
    return id;
  }
}

export interface NewProject {
  name: string;
  description?: string | null;
  extra?: Record<string, unknown> | null;
  referenceDatasetId?: string | null;
  startTime?: number | null;
  endTime?: number | null;
}

export function projectCreatedEvent(
  tenantId: string,
  projectId: string,
  p: NewProject,
): EventToAppend<'ProjectCreated'> {
  return event('ProjectCreated', projectKey(tenantId, projectId), {
    tenant_id: tenantId,
    project_id: projectId,
    name: p.name,
    description: p.description ?? null,
    extra: p.extra == null ? null : JSON.stringify(p.extra),
    created_at: nowMicros(),
    reference_dataset_id: p.referenceDatasetId ?? null,
    start_time: p.startTime ?? null,
    end_time: p.endTime ?? null,
  });
}
