// The deployable example's graph "greeter": answers each message with a scripted greeting (no
// model, no network) that carries GREETING_PREFIX, from langgraph.json's `env`, and the secret
// GREETING_SECRET, which the deployment supplies; the answer says when the secret is missing.
import { AIMessage } from '@langchain/core/messages';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';

function greet(state: typeof MessagesAnnotation.State) {
  const last = state.messages.at(-1);
  const said = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  // Read at each run, not at load: a redeploy with a new secret value is a new process anyway.
  const secret = process.env.GREETING_SECRET ?? '(GREETING_SECRET is not set)';
  const prefix = process.env.GREETING_PREFIX ?? 'Hi';
  return { messages: [new AIMessage(`${prefix} [${secret}]: you said "${said}"`)] };
}

export const graph = new StateGraph(MessagesAnnotation)
  .addNode('greet', greet)
  .addEdge('__start__', 'greet')
  .addEdge('greet', '__end__')
  .compile();
