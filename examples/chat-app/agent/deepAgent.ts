// The chat app's agent, assistant `deep_agent`: a deepagents coordinator that delegates through
// its `task` tool to two subagents, "researcher" (search_web) and "math-whiz" (calculator).
// Offline, every model is a scripted one (./scriptedModels.ts); with OPENAI_API_KEY set they are
// OpenAI's (CHAT_OPENAI_MODEL), the coordinator with reasoning summaries when the model reasons.
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { createDeepAgent } from 'deepagents';
import { ScriptedReasoningModel, type ScriptRole } from './scriptedModels.ts';
import { calculator, searchWeb } from './tools.ts';

export const ASSISTANT_ID = 'deep_agent';

export interface ModelChoice {
  /** `scripted` (offline, the default) or `openai`. */
  provider: 'scripted' | 'openai';
  /** The OpenAI model, when the provider is OpenAI. */
  openaiModel?: string;
  /** The scripted models' pause between tokens. */
  tokenDelayMs?: number;
}

async function modelFor(role: ScriptRole, choice: ModelChoice): Promise<BaseChatModel> {
  if (choice.provider === 'openai') {
    const { ChatOpenAI } = await import('@langchain/openai');
    const model = choice.openaiModel ?? 'gpt-5-mini';
    const reasons = /^(o\d|gpt-5)/.test(model);
    return new ChatOpenAI({
      model,
      streaming: true,
      ...(role === 'coordinator' && reasons ? { reasoning: { effort: 'low', summary: 'auto' } } : {}),
    });
  }
  return new ScriptedReasoningModel({ role, tokenDelayMs: choice.tokenDelayMs ?? 0 });
}

export async function createChatAgent(checkpointer: BaseCheckpointSaver, choice: ModelChoice) {
  return createDeepAgent({
    name: ASSISTANT_ID,
    model: await modelFor('coordinator', choice),
    checkpointer,
    subagents: [
      {
        name: 'researcher',
        description: 'Researches a topic with the search_web tool and reports concise findings.',
        tools: [searchWeb],
        model: await modelFor('researcher', choice),
        systemPrompt:
          'You are the researcher subagent. Use the search_web tool to look up the requested topic, then summarise the findings in two or three sentences. Always call search_web at least once before answering.',
      },
      {
        name: 'math-whiz',
        description: 'Performs calculations with the calculator tool and explains the result.',
        tools: [calculator],
        model: await modelFor('math-whiz', choice),
        systemPrompt:
          'You are the math-whiz subagent. Use the calculator tool to evaluate the requested expression, then state the result clearly. Always call the calculator before answering.',
      },
    ],
    systemPrompt:
      'You are a helpful coordinator. When a request involves looking something up, delegate it to the `researcher` subagent. When it involves math, delegate it to the `math-whiz` subagent. You may run both subagents for a single request. After the subagents respond, combine their results into a short, clearly labelled final answer.',
  });
}

export type ChatAgent = Awaited<ReturnType<typeof createChatAgent>>;
