// The assistants a caller is served as MCP tools: the config file's (system) assistants and the
// workspace's own (assistants/), those the auth module's assistants:search filter lets the
// caller see, oldest first. Every MCP listing and call goes through this one function.
import type { AgentServerDeps } from '../agentServerDeps.ts';
import type { Caller } from '../auth/callers.ts';
import type { Assistant, ServableGraph } from '../graphRegistry.ts';

export interface ServedAssistant {
  assistant: Assistant;
  graph: ServableGraph;
}

/** How many of a workspace's assistants MCP lists at most. */
const MAX_TOOLS = 10_000;

export async function servedAssistants(
  deps: Pick<AgentServerDeps, 'graphs' | 'assistants'>,
  caller: Caller,
): Promise<ServedAssistant[]> {
  const scope = await caller.scope('assistants:search', { graph_id: null, metadata: null, limit: null, offset: 0 });
  const { assistants } = await deps.assistants.search(scope.workspaceId, {
    filters: scope.filters,
    sortBy: 'created_at',
    sortOrder: 'asc',
    limit: MAX_TOOLS,
    offset: 0,
  });
  // An assistant whose graph has left the config file cannot run: it is not a tool.
  return assistants.flatMap((assistant) => {
    const graph = deps.graphs.find(assistant.graph_id)?.graph;
    return graph ? [{ assistant, graph }] : [];
  });
}
