// Example assistant "memory": long-term memory across threads, through the server's store (the
// LangGraph store API: `config.store`, also `getStore()`). "Remember that I like tea" keeps the
// fact under the user's namespace, ["memories", <user>]; any other message, on this thread or
// any other of the workspace, is answered with what is remembered about the user. The user is
// `config.configurable.user_id` when the run names one, else the authenticated user. No model:
// the answers are deterministic.
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { MessagesAnnotation, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { v5 as uuidv5 } from 'uuid';

const REMEMBER = /^\s*remember(?:\s+that)?\s+(.+?)[\s.!]*$/i;
/** Keys of memories: the same fact remembered twice is one memory. */
const MEMORY_KEYS = 'a6c3b2f4-5d1e-4b8a-9c7d-2e1f0a9b8c7d';

function textOf(message: BaseMessage | undefined): string {
  if (!message) return '';
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((p) => ('text' in p ? String(p.text) : '')).join('');
}

export function userOf(config: LangGraphRunnableConfig): string {
  const configurable = config.configurable ?? {};
  return String(configurable.user_id ?? configurable.langgraph_auth_user_id ?? 'anonymous');
}

async function respond(state: typeof MessagesAnnotation.State, config: LangGraphRunnableConfig) {
  const store = config.store;
  if (!store) throw new Error('the memory graph needs a store (the agent server gives every run one)');
  const namespace = ['memories', userOf(config)];
  const said = textOf(state.messages.filter((m) => m.getType() === 'human').at(-1));
  const fact = REMEMBER.exec(said)?.[1];
  if (fact) {
    await store.put(namespace, uuidv5(fact.toLowerCase(), MEMORY_KEYS), { text: fact });
    return { messages: [new AIMessage(`Noted: ${fact}.`)] };
  }
  const memories = (await store.search(namespace, { limit: 100 })).map((item) => String(item.value.text)).sort();
  const answer =
    memories.length === 0
      ? 'I remember nothing about you yet. Tell me "remember that …".'
      : `I remember that ${memories.join('; ')}.`;
  return { messages: [new AIMessage(answer)] };
}

export const graph = new StateGraph(MessagesAnnotation)
  .addNode('respond', respond)
  .addEdge('__start__', 'respond')
  .addEdge('respond', '__end__')
  .compile();
