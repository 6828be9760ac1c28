// A run's inputs or outputs: as chat messages when they are messages (roles, text, tool calls
// with their arguments), as a retriever's documents when they are those, as indented JSON with
// its keys and values coloured, or as the raw JSON text; a copy button takes the JSON.
import { useState, type ReactNode } from 'react';
import { findDocuments, findMessages, type ChatMessage, type RetrievedDocument } from '../core/messages.ts';

type Mode = 'messages' | 'documents' | 'pretty' | 'raw';

export function Payload({ value, testId }: { value: unknown; testId: string }) {
  const messages = findMessages(value);
  const documents = messages ? null : findDocuments(value);
  const [chosen, setMode] = useState<Mode | null>(null);
  const fitting: Mode = messages ? 'messages' : documents ? 'documents' : 'pretty';
  const mode: Mode =
    (chosen === 'messages' && !messages) || (chosen === 'documents' && !documents) ? 'pretty' : (chosen ?? fitting);
  const [copied, setCopied] = useState<string | null>(null);
  const empty = value === undefined || value === null || (typeof value === 'object' && Object.keys(value).length === 0);
  if (empty)
    return (
      <p className="muted payload-empty" data-testid={testId}>
        —
      </p>
    );
  const copy = () =>
    navigator.clipboard.writeText(JSON.stringify(value, null, 2)).then(
      () => setCopied('Copied'),
      () => setCopied('Copy failed'),
    );
  return (
    <div className="payload" data-testid={testId} data-mode={mode}>
      <div className="payload-bar" role="toolbar">
        <span className="segmented">
          {messages && (
            <ModeButton mode="messages" current={mode} onClick={setMode} label={`Messages (${messages.length})`} />
          )}
          {documents && (
            <ModeButton mode="documents" current={mode} onClick={setMode} label={`Documents (${documents.length})`} />
          )}
          <ModeButton mode="pretty" current={mode} onClick={setMode} label="Pretty" />
          <ModeButton mode="raw" current={mode} onClick={setMode} label="Raw" />
        </span>
        <button type="button" className="ghost small" data-testid={`${testId}-copy`} onClick={() => void copy()}>
          {copied ?? 'Copy'}
        </button>
      </div>
      {mode === 'messages' && messages ? (
        <Messages messages={messages} />
      ) : mode === 'documents' && documents ? (
        <Documents documents={documents} />
      ) : mode === 'pretty' ? (
        <PrettyJson value={value} />
      ) : (
        <pre className="json raw">{JSON.stringify(value)}</pre>
      )}
    </div>
  );
}

function ModeButton({
  mode,
  current,
  onClick,
  label,
}: {
  mode: Mode;
  current: Mode;
  onClick: (m: Mode) => void;
  label: string;
}) {
  return (
    <button
      type="button"
      className={mode === current ? 'on' : ''}
      aria-pressed={mode === current}
      data-mode={mode}
      onClick={() => onClick(mode)}
    >
      {label}
    </button>
  );
}

function Messages({ messages }: { messages: ChatMessage[] }) {
  return (
    <ol className="messages">
      {messages.map((m, i) => (
        <li key={i} className={`message role-${m.role}`} data-testid="message" data-role={m.role}>
          <div className="message-head">
            <span className="message-role">{m.role}</span>
            {m.name && <span className="muted">{m.name}</span>}
            {m.toolCallId && <span className="muted">answers {m.toolCallId}</span>}
          </div>
          {m.content && <div className="message-content">{m.content}</div>}
          {m.toolCalls.map((call, j) => (
            <div key={j} className="tool-call" data-testid="tool-call">
              <div className="tool-call-head">
                <span className="tool-call-label">tool call</span>{' '}
                <strong className="tool-call-name">{call.name}</strong>
                {call.id && <code className="muted"> {call.id}</code>}
              </div>
              <PrettyJson value={call.args} />
            </div>
          ))}
        </li>
      ))}
    </ol>
  );
}

const MAX_COLOURED = 200_000;

function Documents({ documents }: { documents: RetrievedDocument[] }) {
  return (
    <ol className="documents">
      {documents.map((d, i) => (
        <li key={i} className="document" data-testid="document">
          <div className="document-content">{d.content}</div>
          {d.metadata && Object.keys(d.metadata).length > 0 && (
            <dl className="document-metadata">
              {Object.entries(d.metadata).map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
                </div>
              ))}
            </dl>
          )}
        </li>
      ))}
    </ol>
  );
}

/** JSON indented, keys, strings and numbers coloured (text only: nothing in the value is markup). */
export function PrettyJson({ value }: { value: unknown }) {
  const source = JSON.stringify(value, null, 2) ?? String(value);
  // A big payload is shown plain: colouring it would cost more than it helps.
  if (source.length > MAX_COLOURED) return <pre className="json">{source}</pre>;
  const parts: ReactNode[] = [];
  const token = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;
  let last = 0;
  for (let m = token.exec(source); m; m = token.exec(source)) {
    if (m.index > last) parts.push(source.slice(last, m.index));
    const kind = m[1] ? (m[2] ? 'k' : 's') : m[3] ? 'b' : 'n';
    parts.push(
      <span key={m.index} className={`j-${kind}`}>
        {m[1] ?? m[0]}
      </span>,
    );
    if (m[2]) parts.push(m[2]);
    last = m.index + m[0].length;
  }
  parts.push(source.slice(last));
  return <pre className="json">{parts}</pre>;
}
