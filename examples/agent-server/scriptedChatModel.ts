// A chat model that answers from a script, offline: it streams its answer word by word (so
// `stream_mode=messages` shows real token events) and reports token usage like a provider.
// The answer names the turn, so a test can see that a thread remembers earlier turns.
import { BaseChatModel, type BaseChatModelParams } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { v4 as uuidv4 } from 'uuid';

function textOf(message: BaseMessage | undefined): string {
  if (!message) return '';
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((p) => ('text' in p ? String(p.text) : '')).join('');
}

/** The scripted answer to a conversation: the turn number and the last human message, echoed. */
export function scriptedAnswer(messages: BaseMessage[]): string {
  const human = messages.filter((m) => m.getType() === 'human');
  return `Turn ${human.length}: you said "${textOf(human.at(-1))}"`;
}

function usage(messages: BaseMessage[], answer: string) {
  const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
  const input_tokens = messages.reduce((n, m) => n + words(textOf(m)), 0);
  const output_tokens = words(answer);
  return { input_tokens, output_tokens, total_tokens: input_tokens + output_tokens };
}

export class ScriptedChatModel extends BaseChatModel {
  constructor(fields: BaseChatModelParams = {}) {
    super(fields);
  }

  _llmType(): string {
    return 'scripted';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const answer = scriptedAnswer(messages);
    const message = new AIMessage({ content: answer, id: uuidv4(), usage_metadata: usage(messages, answer) });
    return { generations: [{ text: answer, message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    _options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const answer = scriptedAnswer(messages);
    const id = uuidv4();
    const tokens = answer.split(/(?<= )/); // words, each with its trailing space
    for (const [i, token] of tokens.entries()) {
      const last = i === tokens.length - 1;
      const chunk = new ChatGenerationChunk({
        text: token,
        message: new AIMessageChunk({
          content: token,
          id,
          ...(last ? { usage_metadata: usage(messages, answer) } : {}),
        }),
      });
      yield chunk;
      await runManager?.handleLLMNewToken(token, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}
