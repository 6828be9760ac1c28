// Create, update and delete projects: check against the registry, append the event, then wait
// until the registry has folded it (read-your-writes). Name uniqueness is decided by the
// topic's order, which every replica folds alike: after appending a creation we look at who
// holds the name; a creation that lost a race with another replica is withdrawn (tombstoned)
// and answered like any duplicate.
import { errors } from '../../../platform/errors.ts';
import { event, type EventLog } from '../../../platform/kafka/eventLog.ts';
import { nowMicros } from '../../../platform/time.ts';
import {
  projectCreatedEvent,
  projectKey,
  type NewProject,
  type Project,
  type ProjectRegistry,
} from '../../../projections/projects/projectRegistry.ts';

export interface ProjectChanges {
  name?: string | null;
  description?: string | null;
  extra?: Record<string, unknown> | null;
  endTime?: number | null;
}

export class ProjectCommands {
  readonly #projects: ProjectRegistry;
  readonly #log: EventLog;

  constructor(projects: ProjectRegistry, log: EventLog) {
    this.#projects = projects;
    this.#log = log;
  }

  /**
   * POST /sessions. A name a live project holds is a 409, or with `upsert` that project,
   * updated with the given description, extra and end time. `id` is the client's (Python
   * sends one); without it the id is derived from the name, as ingestion does.
   */
  async create(
    tenantId: string,
    input: NewProject & { id?: string | null },
    upsert: boolean,
    retried = false,
  ): Promise<Project> {
    await this.#projects.catchUp();
    const existing = this.#projects.byName(tenantId, input.name);
    if (existing) {
      if (!upsert)
        throw errors.conflict(
          `a project named "${input.name}" already exists (id ${existing.id}); choose another name, or POST /sessions?upsert=true to update it`,
        );
      return this.update(tenantId, existing.id, {
        description: input.description,
        extra: input.extra,
        endTime: input.endTime,
      });
    }
    if (input.id != null && (this.#projects.get(tenantId, input.id) || this.#projects.isDeleted(tenantId, input.id)))
      throw errors.conflict(
        `project id ${input.id} is already taken by ${this.#projects.isDeleted(tenantId, input.id) ? 'a deleted project' : 'another project'}`,
      );

    const id = input.id ?? this.#projects.idForName(tenantId, input.name);
    await this.#log.append([projectCreatedEvent(tenantId, id, input)]);
    await this.#projects.catchUp();
    const holder = this.#projects.byName(tenantId, input.name);
    if (holder?.id === id || retried) {
      if (holder) return holder;
      throw errors.conflict(`project "${input.name}" was deleted while it was being created`);
    }
    // Another replica created a project of this name first: withdraw ours, answer as a duplicate.
    if (this.#projects.get(tenantId, id)) await this.#log.append([projectDeletedEvent(tenantId, id)]);
    return this.create(tenantId, { ...input, id: null }, upsert, true);
  }

  /** PATCH /sessions/{id}: a null or absent field is left as it is. */
  async update(tenantId: string, projectId: string, changes: ProjectChanges): Promise<Project> {
    await this.#projects.catchUp();
    const project = this.#projects.get(tenantId, projectId);
    if (!project) throw errors.notFound(`project ${projectId}`);
    const rename = changes.name != null && changes.name !== project.name ? changes.name : null;
    if (rename !== null && this.#projects.byName(tenantId, rename))
      throw errors.conflict(`a project named "${rename}" already exists`);
    if (rename === null && changes.description == null && changes.extra == null && changes.endTime == null)
      return project;

    await this.#log.append([
      event('ProjectUpdated', projectKey(tenantId, projectId), {
        tenant_id: tenantId,
        project_id: projectId,
        name: rename,
        description: changes.description ?? null,
        extra: changes.extra == null ? null : JSON.stringify(changes.extra),
        end_time: changes.endTime ?? null,
        updated_at: nowMicros(),
      }),
    ]);
    await this.#projects.catchUp();
    const updated = this.#projects.get(tenantId, projectId);
    if (!updated) throw errors.notFound(`project ${projectId}`);
    // The fold ignores a rename to a name another replica gave a project just before ours.
    if (rename !== null && updated.name !== rename) throw errors.conflict(`a project named "${rename}" already exists`);
    return updated;
  }

  /** DELETE /sessions/{id}: a tombstone; the projectors then remove the project's runs. */
  async delete(tenantId: string, projectId: string): Promise<void> {
    await this.#projects.catchUp();
    if (!this.#projects.get(tenantId, projectId)) throw errors.notFound(`project ${projectId}`);
    await this.#log.append([projectDeletedEvent(tenantId, projectId)]);
    await this.#projects.catchUp();
  }

  /**
   * Deletes the workspace's live project named `name`, when there is one, as DELETE /sessions/{id}
   * does: the cleanup another context asks for (the deployments context, for a deployment deleted
   * with delete_tracing_project). Returns the deleted project's id; null when no live project has
   * the name, which is no error (nothing was traced, or it is deleted already).
   */
  async deleteNamed(tenantId: string, name: string): Promise<string | null> {
    await this.#projects.catchUp();
    const project = this.#projects.byName(tenantId, name);
    if (!project) return null;
    // Another replica's tombstone for it, folded first, makes this one change nothing: the fold keeps the first.
    await this.#log.append([projectDeletedEvent(tenantId, project.id)]);
    await this.#projects.catchUp();
    return project.id;
  }
}

const projectDeletedEvent = (tenantId: string, projectId: string) =>
  event('ProjectDeleted', projectKey(tenantId, projectId), {
    tenant_id: tenantId,
    project_id: projectId,
    deleted_at: nowMicros(),
  });
