// Threads are per workspace. The client chooses a thread's id; the checkpointer and the session
// registry keep it as `<workspace id>/<thread id>`, so two workspaces may use the same id, each
// getting a thread of its own, and nothing of one workspace's is reachable from another. The
// stored id never leaves the app: its answers name a thread by the client's id. The agent server
// stores its threads the same way (platform/workspaceThreads.ts).
export { storedThreadId, workspacePrefix, type ThreadKey } from '../../platform/workspaceThreads.ts';
