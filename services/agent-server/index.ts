// The agent-server context's public module: what other contexts and processes may use. The
// config file's loader (the deployer checks a revision's langgraph.json with it before starting
// a server) and the entry point that runs a server as its own process (a path: the process root
// is services/processes/agentServerMain.ts, above every context). What the process composes a
// server from is in plugins.ts.
import { fileURLToPath } from 'node:url';

export { loadAgentConfig, type AgentServerConfig, type GraphEntry } from './agentConfig.ts';

/** The file a process runs to serve an agent server (reads platform/config.ts: AGENT_SERVER_PORT, AGENT_SERVER_CONFIG, …). */
export const AGENT_SERVER_ENTRY = fileURLToPath(new URL('../processes/agentServerMain.ts', import.meta.url));
