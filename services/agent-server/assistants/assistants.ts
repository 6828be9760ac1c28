// Every assistant a workspace can use: the config file's system assistants (one per graph, the
// same in every workspace, read-only) and the workspace's own (assistantStore.ts). An assistant id
// is a UUID; a system assistant is also found by its graph's name. What runs, MCP and the routes
// resolve an assistant through.
import { validate as isUuid } from 'uuid';
import { isAuthMatching, type AuthFilters } from '../auth/authFilters.ts';
import type { Assistant, GraphRegistry, RegisteredGraph } from '../graphRegistry.ts';
import { assistantMatches, compareAssistants, type AssistantQuery, type AssistantStore } from './assistantStore.ts';

export interface ResolvedAssistant {
  /** As it is now: a stored assistant's pinned version. */
  assistant: Assistant;
  /** Its graph; undefined for a stored assistant whose graph has left the config file (it can be read, changed or deleted, not run). */
  registered: RegisteredGraph | undefined;
  /** A config file's assistant, which the API cannot change. */
  system: boolean;
}

export class Assistants {
  readonly graphs: GraphRegistry;
  readonly store: AssistantStore;

  constructor(graphs: GraphRegistry, store: AssistantStore) {
    this.graphs = graphs;
    this.store = store;
  }

  /** A system assistant by its id or graph name. */
  system(idOrGraphId: string): RegisteredGraph | undefined {
    return this.graphs.find(idOrGraphId);
  }

  /**
   * The assistant `idOrGraphId` names in the workspace, if the auth module's filter lets the
   * caller see it: a system assistant (by id or graph name) or one of the workspace's own.
   */
  async find(workspaceId: string, idOrGraphId: string, filters?: AuthFilters): Promise<ResolvedAssistant | undefined> {
    const registered = this.graphs.find(idOrGraphId);
    if (registered)
      return isAuthMatching(registered.assistant.metadata, filters)
        ? { assistant: registered.assistant, registered, system: true }
        : undefined;
    if (!isUuid(idOrGraphId)) return undefined;
    const assistant = await this.store.get(workspaceId, idOrGraphId.toLowerCase(), filters);
    return assistant && { assistant, registered: this.graphs.find(assistant.graph_id), system: false };
  }

  /** One page of the system assistants and the workspace's own that match, in order, and how many match. */
  async search(
    workspaceId: string,
    query: Omit<AssistantQuery, 'limit'> & { limit: number; offset: number },
  ): Promise<{ assistants: Assistant[]; total: number }> {
    const wanted = query.offset + query.limit;
    const system = this.graphs
      .all()
      .map((g) => g.assistant)
      .filter((a) => assistantMatches(a, query));
    const stored = await this.store.search(workspaceId, { ...query, limit: wanted });
    const all = [...system, ...stored.assistants].sort(compareAssistants(query.sortBy, query.sortOrder));
    return { assistants: all.slice(query.offset, wanted), total: system.length + stored.total };
  }
}
