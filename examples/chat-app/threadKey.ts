// Threads are per workspace. The client chooses a thread's id; the checkpointer keeps it as
// `<workspace id>/<thread id>` (the agent server's WorkspaceCheckpointer, platform/workspaceThreads.ts,
// around the app's saver), so two workspaces may use the same id, each getting a thread of its
// own, and nothing of one workspace's is reachable from another. The stored id never leaves the
// app: its answers name a thread by the client's id.
export { workspacePrefix, type ThreadKey } from '../../platform/workspaceThreads.ts';
