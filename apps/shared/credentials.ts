// How a page signs in to a service of the platform: an API key (sent as X-Api-Key) and, for a key
// of several workspaces, the workspace it acts in (X-Tenant-Id), kept in this browser's
// localStorage under the page's own names. The trace explorer and the chat page both use it.

export interface Credentials {
  apiKey: string;
  /** The workspace to act in, for a key linked to several (X-Tenant-Id); null for a key of one. */
  workspaceId: string | null;
}

/** A workspace as GET /workspaces lists them (the tracing API's, and the chat app's /api/workspaces). */
export interface Workspace {
  id: string;
  display_name: string;
}

export interface CredentialStore {
  load(): Credentials | null;
  save(credentials: Credentials | null): void;
}

/** Credentials kept under `<page>.apiKey` and `<page>.workspaceId`. */
export function credentialStore(page: string): CredentialStore {
  const keyName = `${page}.apiKey`;
  const workspaceName = `${page}.workspaceId`;
  return {
    load() {
      const apiKey = localStorage.getItem(keyName);
      return apiKey ? { apiKey, workspaceId: localStorage.getItem(workspaceName) } : null;
    },
    save(credentials) {
      if (!credentials) {
        localStorage.removeItem(keyName);
        localStorage.removeItem(workspaceName);
        return;
      }
      localStorage.setItem(keyName, credentials.apiKey);
      if (credentials.workspaceId) localStorage.setItem(workspaceName, credentials.workspaceId);
      else localStorage.removeItem(workspaceName);
    },
  };
}

/** The headers that sign a request: the key, and the workspace it acts in. */
export function authHeaders(credentials: Credentials): Record<string, string> {
  const headers: Record<string, string> = { 'x-api-key': credentials.apiKey };
  if (credentials.workspaceId) headers['x-tenant-id'] = credentials.workspaceId;
  return headers;
}

/**
 * The credentials to keep for a key, given its workspaces (GET /workspaces): a key of several
 * acts in `suggested` when it is one of them, else in the first by name (the page can switch).
 */
export function credentialsFor(apiKey: string, workspaces: Workspace[], suggested: string | null = null): Credentials {
  const picked = workspaces.find((w) => w.id === suggested) ?? workspaces[0];
  return { apiKey, workspaceId: workspaces.length > 1 && picked ? picked.id : null };
}
