// Assistant `adk_echo`: a Google ADK agent served by the agent server through `wrap(runner)`.
// An LlmAgent with one tool (`count_words`, which keeps a running total in the session state), an
// `output_key` (`last_reply`), and a tone taken from the session state (`{tone?}` in its
// instruction, settable per turn with `state_delta`). Offline, its model is EchoLlm below, which
// streams partial tokens like Gemini in SSE mode; with GOOGLE_API_KEY set it is Gemini
// (ADK_GEMINI_MODEL, default gemini-2.5-flash).
import {
  BaseLlm,
  FunctionTool,
  LlmAgent,
  Runner,
  type LlmRequest,
  type LlmResponse,
  type BaseLlmConnection,
} from '@google/adk';
import type { Content } from '@google/genai';
import { z } from 'zod';
import { CheckpointSessionService, wrap } from '../../services/agent-server/adapters/adk/index.ts';

export const APP_NAME = 'adk_echo';

/** The words of a text, as the tool and the offline model count them. */
export const wordsOf = (text: string): string[] => text.split(/\s+/).filter(Boolean);

const countWords = new FunctionTool({
  name: 'count_words',
  description: 'Counts the words of a text and adds them to the running total of the conversation.',
  parameters: z.object({ text: z.string().describe('The text to count.') }),
  execute: ({ text }, context) => {
    const words = wordsOf(text).length;
    const total = Number(context?.state.get('word_total') ?? 0) + words;
    context?.state.set('word_total', total);
    return { words, total };
  },
});

const textOf = (content: Content | undefined) => (content?.parts ?? []).map((p) => p.text ?? '').join('');

/**
 * A deterministic model: for a new user message it calls count_words with it; with the tool's
 * answer it streams `Turn <n>: you said "<text>" (<words> words, <total> in all[, tone])`, word by
 * word as partial responses, then the whole text as the final one. `<n>` counts the user messages
 * in the request, i.e. in the ADK session's history.
 */
export class EchoLlm extends BaseLlm {
  constructor() {
    super({ model: 'echo-offline' });
  }

  async *generateContentAsync(request: LlmRequest, stream = false): AsyncGenerator<LlmResponse, void> {
    const contents = request.contents ?? [];
    const last = contents.at(-1);
    const toolAnswer = last?.parts?.find((p) => p.functionResponse)?.functionResponse;
    const userTexts = contents.filter(
      (c) => c.role === 'user' && c.parts?.some((p) => typeof p.text === 'string' && p.text.length > 0),
    );
    if (!toolAnswer) {
      yield {
        content: {
          role: 'model',
          parts: [
            {
              functionCall: {
                id: `call-${crypto.randomUUID()}`,
                name: 'count_words',
                args: { text: textOf(userTexts.at(-1)) },
              },
            },
          ],
        },
        turnComplete: true,
      };
      return;
    }
    const said = textOf(userTexts.at(-1));
    const result = toolAnswer.response as { words?: number; total?: number } | undefined;
    const instruction =
      textOf(request.config?.systemInstruction as Content | undefined) ||
      String(request.config?.systemInstruction ?? '');
    const tone = /Tone: (\w+)/.exec(instruction)?.[1];
    const answer = `Turn ${userTexts.length}: you said "${said}" (${result?.words} words, ${result?.total} in all${tone ? `, ${tone}` : ''})`;
    if (stream) {
      const tokens = answer.match(/\S+\s*/g) ?? [answer];
      for (const token of tokens) yield { content: { role: 'model', parts: [{ text: token }] }, partial: true };
    }
    yield {
      content: { role: 'model', parts: [{ text: answer }] },
      turnComplete: true,
      usageMetadata: {
        promptTokenCount: wordsOf(said).length,
        candidatesTokenCount: wordsOf(answer).length,
        totalTokenCount: wordsOf(said).length + wordsOf(answer).length,
      },
    };
  }

  async connect(_request: LlmRequest): Promise<BaseLlmConnection> {
    throw new Error('EchoLlm has no live (bidirectional) connection');
  }
}

export const agent = new LlmAgent({
  name: APP_NAME,
  description: 'Echoes what you say, counting words with a tool, and remembers the conversation in its ADK session.',
  model: process.env.GOOGLE_API_KEY ? (process.env.ADK_GEMINI_MODEL ?? 'gemini-2.5-flash') : new EchoLlm(),
  instruction:
    'Call count_words with the user message, then repeat the message and say how many words it has and how many in all. Tone: {tone?}',
  tools: [countWords],
  outputKey: 'last_reply',
});

export const runner = new Runner({ appName: APP_NAME, agent, sessionService: new CheckpointSessionService() });

export const graph = wrap(runner);
