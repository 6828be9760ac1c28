// What the page reads off a LangChain message (the stream client hands out class instances):
// its text, its reasoning blocks, its tool calls, and a tool result's status.
import type { BaseMessage } from '@langchain/core/messages';

export interface ToolCallLike {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
}

/** The `task` tool: how a deep agent hands work to a subagent. */
export const TASK_TOOL = 'task';

export function textOf(message: BaseMessage): string {
  try {
    return message.text ?? '';
  } catch {
    return typeof message.content === 'string' ? message.content : '';
  }
}

/** The reasoning the model streamed as `{type: "reasoning"}` content blocks. */
export function reasoningOf(message: BaseMessage): string {
  if (message.type !== 'ai') return '';
  try {
    return message.contentBlocks
      .map((block) => (block.type === 'reasoning' && typeof block.reasoning === 'string' ? block.reasoning : ''))
      .join('')
      .trim();
  } catch {
    return '';
  }
}

export function toolCallsOf(message: BaseMessage): ToolCallLike[] {
  if (message.type !== 'ai') return [];
  return ((message as { tool_calls?: ToolCallLike[] }).tool_calls ?? []).filter((call) => call.name);
}

export function toolCallIdOf(message: BaseMessage): string | undefined {
  const id = (message as { tool_call_id?: unknown }).tool_call_id;
  return typeof id === 'string' ? id : undefined;
}

export function toolFailed(message: BaseMessage | undefined): boolean {
  return (message as { status?: unknown } | undefined)?.status === 'error';
}
