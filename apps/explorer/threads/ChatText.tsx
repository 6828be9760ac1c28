// A turn's inputs or outputs as chat text: the messages (core/messages.ts, the trace view's reader
// too) as speech bubbles by role with their tool calls, the one string of a payload as text,
// anything else as pretty JSON.
import { findMessages, soleText } from '../core/messages.ts';

export function ChatText({ payload, testId }: { payload: unknown; testId: string }) {
  if (payload === undefined || payload === null)
    return (
      <p className="muted" data-testid={testId}>
        none
      </p>
    );
  const messages = findMessages(payload);
  if (messages)
    return (
      <div className="chat" data-testid={testId}>
        {messages.map((m, i) => (
          <div key={i} className={`chat-message chat-${m.role}`}>
            <span className="chat-role">{m.name ? `${m.role} · ${m.name}` : m.role}</span>
            {m.content && <div className="chat-text">{m.content}</div>}
            {m.toolCalls.map((call, j) => (
              <div key={j} className="chat-tool-call">
                <span className="chat-role">tool call</span>{' '}
                <code>
                  {call.name}({JSON.stringify(call.args)})
                </code>
              </div>
            ))}
          </div>
        ))}
      </div>
    );
  const text = soleText(payload);
  if (text !== null)
    return (
      <div className="chat-text plain" data-testid={testId}>
        {text}
      </div>
    );
  return (
    <pre className="json" data-testid={testId}>
      {JSON.stringify(payload, null, 2)}
    </pre>
  );
}
