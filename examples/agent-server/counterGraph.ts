// Example assistant "counter": a state without `messages` (A2A refuses text for it, and says so).
import { Annotation, StateGraph } from '@langchain/langgraph';

const CounterState = Annotation.Root({
  count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

export const graph = new StateGraph(CounterState)
  .addNode('increment', () => ({ count: 1 }))
  .addEdge('__start__', 'increment')
  .addEdge('increment', '__end__')
  .compile();
