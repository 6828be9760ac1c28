// A turn's inputs or outputs as chat text: the messages (chatMessages.ts) as speech bubbles by
// role, the one string of a payload as text, anything else as pretty JSON.
import { messagesOf, soleText } from './chatMessages.ts';

export function ChatText({ payload, testId }: { payload: unknown; testId: string }) {
  if (payload === undefined || payload === null) return <p className="muted" data-testid={testId}>none</p>;
  const messages = messagesOf(payload);
  if (messages)
    return (
      <div className="chat" data-testid={testId}>
        {messages.map((m, i) => (
          <div key={i} className={`chat-message chat-${m.role}`}>
            <span className="chat-role">{m.role}</span>
            <div className="chat-text">{m.text}</div>
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
