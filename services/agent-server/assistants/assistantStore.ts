// Assistants created through the API (`POST /assistants`), as opposed to the system assistants the
// config file's graphs register (graphRegistry.ts, read-only). Each belongs to one workspace and
// is keyed by its workspace and its id, like a thread; another workspace's assistant is as absent
// as an unknown one. Every change (PATCH) is a new version; one version is the assistant's current
// ("latest", pinned by `POST /assistants/{id}/latest`), and runs use that version's config and
// context. Memory in memory mode; PostgreSQL (postgresAssistantStore.ts) beside threads otherwise.
import { isAuthMatching, type AuthFilters } from '../auth/authFilters.ts';
import type { Assistant } from '../graphRegistry.ts';
import { jsonContains, type Json } from '../store/agentRecords.ts';

/** One version of an assistant: what it was after a create or a PATCH. */
export interface AssistantVersion {
  assistant_id: string;
  graph_id: string;
  version: number;
  name: string;
  description: string | null;
  config: Json;
  context: Json;
  metadata: Json;
  created_at: string;
}

/** What a PATCH changes: each given field replaces the current version's (metadata is merged into it). */
export interface AssistantPatch {
  graph_id?: string;
  name?: string;
  description?: string | null;
  config?: Json;
  context?: Json;
  metadata?: Json;
}

export const ASSISTANT_SORTABLE = ['assistant_id', 'graph_id', 'name', 'created_at', 'updated_at'] as const;
export type AssistantSortKey = (typeof ASSISTANT_SORTABLE)[number];

export interface AssistantQuery {
  graphId?: string;
  /** Assistants whose name contains this, in any case. */
  name?: string;
  metadata?: Json;
  /** The auth module's filter on the assistants' metadata. */
  filters?: AuthFilters;
  sortBy: AssistantSortKey;
  sortOrder: 'asc' | 'desc';
  /** How many of the first matches, in order, to return. */
  limit: number;
}

export interface AssistantStore {
  /** Stores the assistant as its version 1, or returns undefined when the workspace has an assistant of that id. */
  create(workspaceId: string, assistant: Assistant): Promise<Assistant | undefined>;
  get(workspaceId: string, assistantId: string, filters?: AuthFilters): Promise<Assistant | undefined>;
  /** Makes a new version from the current one and the patch, and pins it. */
  update(
    workspaceId: string,
    assistantId: string,
    patch: AssistantPatch,
    filters?: AuthFilters,
  ): Promise<Assistant | undefined>;
  delete(workspaceId: string, assistantId: string, filters?: AuthFilters): Promise<boolean>;
  /** The first `limit` matches in order, and how many match in all. */
  search(workspaceId: string, query: AssistantQuery): Promise<{ assistants: Assistant[]; total: number }>;
  /** Its versions, newest first; undefined when there is no such assistant. */
  versions(
    workspaceId: string,
    assistantId: string,
    options: { metadata?: Json; limit: number; offset: number; filters?: AuthFilters },
  ): Promise<AssistantVersion[] | undefined>;
  /** Pins a version; 'no-version' when the assistant has no such version. */
  setLatest(
    workspaceId: string,
    assistantId: string,
    version: number,
    filters?: AuthFilters,
  ): Promise<Assistant | undefined | 'no-version'>;
  close(): Promise<void>;
}

export const nowIso = (): string => new Date().toISOString();

/** The version a patch makes of `current`. */
export function nextVersion(current: Assistant, patch: AssistantPatch, version: number): AssistantVersion {
  return {
    assistant_id: current.assistant_id,
    graph_id: patch.graph_id ?? current.graph_id,
    version,
    name: patch.name ?? current.name,
    description: patch.description !== undefined ? patch.description : current.description,
    config: patch.config ?? current.config,
    context: patch.context ?? current.context,
    metadata: patch.metadata ? { ...current.metadata, ...patch.metadata } : current.metadata,
    created_at: nowIso(),
  };
}

/** The assistant as it is with `version` pinned. */
export function withVersion(assistant: Assistant, version: AssistantVersion, updatedAt = nowIso()): Assistant {
  const { created_at: _versionCreated, ...fields } = version;
  return { ...assistant, ...fields, updated_at: updatedAt };
}

export function versionOf(assistant: Assistant): AssistantVersion {
  const { updated_at: _updated, ...fields } = assistant;
  return fields;
}

export function assistantMatches(assistant: Assistant, query: Omit<AssistantQuery, 'sortBy' | 'sortOrder' | 'limit'>) {
  return (
    isAuthMatching(assistant.metadata, query.filters) &&
    (!query.graphId || assistant.graph_id === query.graphId) &&
    (!query.name || assistant.name.toLowerCase().includes(query.name.toLowerCase())) &&
    (!query.metadata || jsonContains(assistant.metadata, query.metadata))
  );
}

export function compareAssistants(key: AssistantSortKey, order: 'asc' | 'desc') {
  const sign = order === 'asc' ? 1 : -1;
  return (a: Assistant, b: Assistant) => (a[key] < b[key] ? -sign : a[key] > b[key] ? sign : 0);
}

/** Assistants in memory (lost on restart), for memory mode. */
export class MemoryAssistantStore implements AssistantStore {
  private readonly assistants = new Map<string, { assistant: Assistant; versions: AssistantVersion[] }>();

  private key = (workspaceId: string, assistantId: string) => `${workspaceId}/${assistantId}`;

  private entry(workspaceId: string, assistantId: string, filters?: AuthFilters) {
    const entry = this.assistants.get(this.key(workspaceId, assistantId));
    return entry && isAuthMatching(entry.assistant.metadata, filters) ? entry : undefined;
  }

  async create(workspaceId: string, assistant: Assistant): Promise<Assistant | undefined> {
    const key = this.key(workspaceId, assistant.assistant_id);
    if (this.assistants.has(key)) return undefined;
    this.assistants.set(key, { assistant, versions: [versionOf(assistant)] });
    return assistant;
  }

  async get(workspaceId: string, assistantId: string, filters?: AuthFilters): Promise<Assistant | undefined> {
    return this.entry(workspaceId, assistantId, filters)?.assistant;
  }

  async update(workspaceId: string, assistantId: string, patch: AssistantPatch, filters?: AuthFilters) {
    const entry = this.entry(workspaceId, assistantId, filters);
    if (!entry) return undefined;
    const version = nextVersion(entry.assistant, patch, Math.max(...entry.versions.map((v) => v.version)) + 1);
    entry.versions.push(version);
    entry.assistant = withVersion(entry.assistant, version, version.created_at);
    return entry.assistant;
  }

  async delete(workspaceId: string, assistantId: string, filters?: AuthFilters): Promise<boolean> {
    if (!this.entry(workspaceId, assistantId, filters)) return false;
    return this.assistants.delete(this.key(workspaceId, assistantId));
  }

  async search(workspaceId: string, query: AssistantQuery) {
    const prefix = `${workspaceId}/`;
    const all = [...this.assistants.entries()]
      .filter(([key, { assistant }]) => key.startsWith(prefix) && assistantMatches(assistant, query))
      .map(([, { assistant }]) => assistant)
      .sort(compareAssistants(query.sortBy, query.sortOrder));
    return { assistants: all.slice(0, query.limit), total: all.length };
  }

  async versions(
    workspaceId: string,
    assistantId: string,
    options: { metadata?: Json; limit: number; offset: number; filters?: AuthFilters },
  ) {
    const entry = this.entry(workspaceId, assistantId, options.filters);
    if (!entry) return undefined;
    return entry.versions
      .filter((v) => !options.metadata || jsonContains(v.metadata, options.metadata))
      .sort((a, b) => b.version - a.version)
      .slice(options.offset, options.offset + options.limit);
  }

  async setLatest(workspaceId: string, assistantId: string, version: number, filters?: AuthFilters) {
    const entry = this.entry(workspaceId, assistantId, filters);
    if (!entry) return undefined;
    const pinned = entry.versions.find((v) => v.version === version);
    if (!pinned) return 'no-version' as const;
    entry.assistant = withVersion(entry.assistant, pinned);
    return entry.assistant;
  }

  async close(): Promise<void> {}
}
