// A state update applied as a node would return it (POST /threads/{id}/state, the supersteps of
// POST /threads). What the graph refuses (an update that is not an object, a node it does not
// have, messages LangChain cannot coerce) is the caller's fault: a 422 saying what the graph
// said, never a 500. Any other failure (the checkpointer's storage) stays the server's.
import { errors } from '../../../platform/errors.ts';
import type { ServableGraph } from '../graphRegistry.ts';

export async function applyStateUpdate(
  graph: ServableGraph,
  config: Record<string, unknown>,
  values: unknown,
  asNode?: string,
): Promise<Record<string, unknown>> {
  try {
    return await graph.updateState(config, values, asNode);
  } catch (err) {
    if (!refusedByGraph(err)) throw err;
    // LangChain appends a troubleshooting URL after the first line.
    throw errors.validation(`the graph refused the state update: ${err.message.split('\n')[0]}`);
  }
}

/** LangGraph's InvalidUpdateError, or a LangChain error carrying its error code (a message it cannot coerce). */
function refusedByGraph(err: unknown): err is Error {
  return (
    err instanceof Error &&
    (err.name === 'InvalidUpdateError' || typeof (err as { lc_error_code?: unknown }).lc_error_code === 'string')
  );
}
