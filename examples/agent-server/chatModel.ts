// The example assistants' chat model: a real provider when its API key is set (OPENAI_API_KEY,
// model from OPENAI_MODEL), else the offline scripted model.
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ScriptedChatModel } from './scriptedChatModel.ts';

export async function exampleChatModel(): Promise<BaseChatModel> {
  if (process.env.OPENAI_API_KEY) {
    const { ChatOpenAI } = await import('@langchain/openai');
    return new ChatOpenAI({ model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini', streaming: true });
  }
  return new ScriptedChatModel();
}
