// Projects (sessions) as the write side needs them: does a session_id exist, which id does a
// session_name have. Folded from the projects topic in every API process.
import { v5 as uuidv5 } from 'uuid';
import type { Config } from '../../common/config.ts';
import type { Logger } from '../../common/logger.ts';
import { errors } from '../../common/errors.ts';
import { event, type EventToAppend } from '../../common/kafka/eventLog.ts';
import { TopicState } from '../../common/kafka/topicState.ts';
import { TOPICS } from '../../common/kafka/topics.ts';
import type { DecodedEvent } from '../../../schemas/registry.ts';
import { ID_NAMESPACE } from '../../tenancy/apiKeys.ts';
import { nowMicros } from '../ingest/timestamps.ts';

export interface Project {
  id: string;
  tenantId: string;
  name: string;
  createdAt: number;
}

export const DEFAULT_PROJECT_NAME = 'default';

/** Projects created by name get the same id in every replica, so racing first uses agree. */
export const projectIdForName = (tenantId: string, name: string): string => uuidv5(`project:${tenantId}:${name}`, ID_NAMESPACE);

export class ProjectRegistry {
  readonly #byId = new Map<string, Project>();
  readonly #byName = new Map<string, string>();
  readonly #topicState: TopicState;

  constructor(config: Config, logger: Logger) {
    this.#topicState = new TopicState(config, TOPICS.projects, this.apply, logger);
  }

  start(): Promise<void> {
    return this.#topicState.start();
  }

  apply = (e: DecodedEvent): void => {
    if (e.name !== 'ProjectCreated') return;
    const p = e.payload;
    if (this.#byId.has(`${p.tenant_id}/${p.project_id}`)) return;
    this.#byId.set(`${p.tenant_id}/${p.project_id}`, { id: p.project_id, tenantId: p.tenant_id, name: p.name, createdAt: p.created_at });
    if (!this.#byName.has(`${p.tenant_id}/${p.name}`)) this.#byName.set(`${p.tenant_id}/${p.name}`, p.project_id);
  };

  get(tenantId: string, projectId: string): Project | undefined {
    return this.#byId.get(`${tenantId}/${projectId}`);
  }

  /**
   * The project a new run goes to: session_id must exist (404 otherwise), session_name is
   * created on first use, neither means "default". Returns the creation event when one is due.
   */
  async resolve(tenantId: string, sessionId: string | null, sessionName: string | null, pending: Map<string, EventToAppend>): Promise<string> {
    if (sessionId !== null) {
      if (this.get(tenantId, sessionId) || pending.has(sessionId)) return sessionId;
      await this.#topicState.catchUp();
      if (this.get(tenantId, sessionId)) return sessionId;
      throw errors.notFound(`project (session_id) ${sessionId}`);
    }
    const name = sessionName ?? DEFAULT_PROJECT_NAME;
    const known = this.#byName.get(`${tenantId}/${name}`);
    if (known) return known;
    const id = projectIdForName(tenantId, name);
    if (!pending.has(id))
      pending.set(id, event('ProjectCreated', `${tenantId}/${id}`, { tenant_id: tenantId, project_id: id, name, description: null, extra: null, created_at: nowMicros() }));
    return id;
  }

  close(): Promise<void> {
    return this.#topicState.close();
  }
}
