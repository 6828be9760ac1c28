// Threads are per workspace. The client chooses a thread's id; the checkpointer and the session
// registry keep it as `<workspace id>/<thread id>` (a thread id has no "/"), so two workspaces may
// use the same id, each getting a thread of its own, and nothing of one workspace's is reachable
// from another. The stored id never leaves the app: its answers name a thread by the client's id.

/** A thread as a request names it: the caller's workspace and the id the client chose. */
export interface ThreadKey {
  workspaceId: string;
  threadId: string;
}

/** The thread's id in the checkpointer and the session registry. */
export const storedThreadId = (key: ThreadKey): string => `${key.workspaceId}/${key.threadId}`;

/** What a workspace's stored thread ids start with. */
export const workspacePrefix = (workspaceId: string): string => `${workspaceId}/`;
