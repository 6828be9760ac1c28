// Example assistant "noop": one node that changes nothing. The agent-server benchmark measures
// the server's own cost with it.
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';

export const graph = new StateGraph(MessagesAnnotation)
  .addNode('noop', () => ({}))
  .addEdge('__start__', 'noop')
  .addEdge('noop', '__end__')
  .compile();
