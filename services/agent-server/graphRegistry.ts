// The graphs named in the config file, loaded once, each registered as a system assistant whose
// id is the UUIDv5 of the graph id in the LangGraph namespace (so ids match the LangGraph server's).
import { pathToFileURL } from 'node:url';
import { v5 as uuidv5, validate as isUuid } from 'uuid';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { GraphEntry } from './agentConfig.ts';

export const LANGGRAPH_ASSISTANT_NAMESPACE = '6ba7b821-9dad-11d1-80b4-00c04fd430c8';

export function assistantIdForGraph(graphId: string): string {
  return uuidv5(graphId, LANGGRAPH_ASSISTANT_NAMESPACE);
}

/** The parts of a compiled LangGraph graph the server uses. */
export interface ServableGraph {
  checkpointer?: BaseCheckpointSaver | boolean;
  builder?: { channels?: Record<string, unknown> };
  /** The channels the graph outputs (its output schema's, else every state channel); one name for a single-channel output. */
  outputChannels?: string | string[];
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  getState(config: Record<string, unknown>, options?: Record<string, unknown>): Promise<StateSnapshotLike>;
  getStateHistory(config: Record<string, unknown>, options?: Record<string, unknown>): AsyncIterable<StateSnapshotLike>;
  updateState(config: Record<string, unknown>, values: unknown, asNode?: string): Promise<Record<string, unknown>>;
  getGraphAsync?(config?: Record<string, unknown>): Promise<{ toJSON(): unknown }>;
  /** Its subgraphs by namespace (under `namespace` when given; theirs too with `recurse`). */
  getSubgraphsAsync?(namespace?: string, recurse?: boolean): AsyncIterable<[string, ServableGraph]>;
}

export interface StateSnapshotLike {
  values: unknown;
  next: string[];
  tasks: {
    id: string;
    name: string;
    error?: unknown;
    interrupts: unknown[];
    path?: unknown;
    state?: unknown;
    result?: unknown;
  }[];
  metadata?: Record<string, unknown>;
  createdAt?: string;
  config: { configurable?: Record<string, unknown> };
  parentConfig?: { configurable?: Record<string, unknown> };
}

export interface Assistant {
  assistant_id: string;
  graph_id: string;
  name: string;
  description: string | null;
  config: Record<string, unknown>;
  context: Record<string, unknown>;
  metadata: Record<string, unknown>;
  version: number;
  created_at: string;
  updated_at: string;
}

/** A graph to serve, by its graph id. */
export interface BuiltGraph {
  graphId: string;
  graph: ServableGraph;
  description?: string;
}

export interface RegisteredGraph {
  assistant: Assistant;
  graph: ServableGraph;
  /** The keys of the graph's state, sorted: the A2A card's input schema and its `messages` check. */
  stateKeys: string[];
}

function isCompiled(value: unknown): value is ServableGraph {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ServableGraph).stream === 'function' &&
    'builder' in value
  );
}

async function importGraph(entry: GraphEntry): Promise<ServableGraph> {
  const module = (await import(pathToFileURL(entry.file).href)) as Record<string, unknown>;
  let graph = await module[entry.exportName];
  if (graph === undefined)
    throw new Error(`graph "${entry.graphId}": ${entry.file} has no export "${entry.exportName}"`);
  if (!isCompiled(graph) && typeof (graph as { compile?: unknown })?.compile === 'function')
    graph = (graph as { compile(): unknown }).compile();
  if (!isCompiled(graph))
    throw new Error(
      `graph "${entry.graphId}": export "${entry.exportName}" of ${entry.file} is not a LangGraph graph (a StateGraph, compiled or not)`,
    );
  return graph;
}

export class GraphRegistry {
  private readonly byAssistantId = new Map<string, RegisteredGraph>();
  private readonly byGraphId = new Map<string, RegisteredGraph>();

  static async load(entries: GraphEntry[], checkpointer: BaseCheckpointSaver): Promise<GraphRegistry> {
    const graphs: BuiltGraph[] = [];
    for (const entry of entries)
      graphs.push({ graphId: entry.graphId, graph: await importGraph(entry), description: entry.description });
    return GraphRegistry.of(graphs, checkpointer);
  }

  /** The graphs an app has built itself, each a system assistant (an app serving its own graph in-process). */
  static of(graphs: BuiltGraph[], checkpointer: BaseCheckpointSaver): GraphRegistry {
    const registry = new GraphRegistry();
    const now = new Date().toISOString();
    for (const { graphId, graph, description } of graphs) {
      graph.checkpointer = checkpointer; // one saver for all graphs: threads are keyed by workspace and thread_id
      const assistant: Assistant = {
        assistant_id: assistantIdForGraph(graphId),
        graph_id: graphId,
        name: graphId,
        description: description ?? null,
        config: {},
        context: {},
        metadata: { created_by: 'system' },
        version: 1,
        created_at: now,
        updated_at: now,
      };
      const stateKeys = Object.keys(graph.builder?.channels ?? {}).sort();
      const registered = { assistant, graph, stateKeys };
      registry.byAssistantId.set(assistant.assistant_id, registered);
      registry.byGraphId.set(graphId, registered);
    }
    return registry;
  }

  /** An assistant by its id or by its graph's name (both are accepted wherever an assistant id is). */
  find(assistantIdOrGraphId: string): RegisteredGraph | undefined {
    if (isUuid(assistantIdOrGraphId)) return this.byAssistantId.get(assistantIdOrGraphId.toLowerCase());
    return this.byGraphId.get(assistantIdOrGraphId);
  }

  all(): RegisteredGraph[] {
    return [...this.byAssistantId.values()];
  }
}
