// Example assistant "agent": a chat agent over a `messages` state (so A2A can talk to it). It
// reports progress on the `custom` stream, answers with the example chat model, and records
// who asked (the authenticated user, or "anonymous").
import { Annotation, MessagesAnnotation, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { exampleChatModel } from './chatModel.ts';

const ChatState = Annotation.Root({
  ...MessagesAnnotation.spec,
  user_id: Annotation<string>(),
});

const model = await exampleChatModel();

async function answer(state: typeof ChatState.State, config: LangGraphRunnableConfig) {
  config.writer?.({ type: 'progress', step: 'calling the model' });
  const reply = await model.invoke(state.messages, config);
  return { messages: [reply], user_id: String(config.configurable?.langgraph_auth_user_id ?? 'anonymous') };
}

export const graph = new StateGraph(ChatState)
  .addNode('agent', answer)
  .addEdge('__start__', 'agent')
  .addEdge('agent', '__end__')
  .compile();
