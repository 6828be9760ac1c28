// Tool-call argument deltas in the form `@langchain/react`'s client reads. LangGraph
// (@langchain/langgraph 1.7, protocol 0.0.21) streams a tool call's arguments as
// `{type: "tool-call-delta", args}` slices to append; @langchain/react 1.1.0 pins
// @langchain/langgraph-sdk 1.11.0 (protocol 0.0.19), which does not know that variant and, instead
// of ignoring it as the protocol asks, loses the whole message and stops assembling that
// namespace's messages (a subagent's panel in the example chat app then stops at its first tool
// call). The protocol's older, equivalent form is a `block-delta` whose `fields` replace the
// block's fields: so each slice goes out as the arguments so far.
// One instance per run: it keeps the arguments of the tool-call blocks still streaming.

interface MessagesData {
  event?: string;
  index?: number;
  content?: { type?: string; args?: unknown };
  delta?: { type?: string; args?: unknown };
  [key: string]: unknown;
}

export class ToolCallDeltaRewriter {
  /** Arguments so far, by namespace, node and block index. */
  readonly #args = new Map<string, string>();

  /** The event's `data` as it should go out (the same object when nothing needs rewriting). */
  rewrite(method: string, namespace: readonly string[], node: string | undefined, data: unknown): unknown {
    if (method !== 'messages' || data === null || typeof data !== 'object') return data;
    const message = data as MessagesData;
    const block = `${namespace.join('/')}|${node ?? ''}|${message.index ?? ''}`;
    switch (message.event) {
      case 'content-block-start':
        if (message.content?.type === 'tool_call_chunk')
          this.#args.set(block, typeof message.content.args === 'string' ? message.content.args : '');
        return data;
      case 'content-block-delta': {
        if (message.delta?.type !== 'tool-call-delta') return data;
        const args = (this.#args.get(block) ?? '') + (typeof message.delta.args === 'string' ? message.delta.args : '');
        this.#args.set(block, args);
        return { ...message, delta: { type: 'block-delta', fields: { type: 'tool_call_chunk', args } } };
      }
      case 'content-block-finish':
        this.#args.delete(block);
        return data;
      case 'message-finish':
      case 'error':
        for (const key of this.#args.keys())
          if (key.startsWith(`${namespace.join('/')}|${node ?? ''}|`)) this.#args.delete(key);
        return data;
      default:
        return data;
    }
  }
}
