// The open conversation: its messages as they stream, the subagents' panels where the
// coordinator delegated, the composer, and what went wrong in words.
import { useEffect, useMemo, useRef, useState } from 'react';
import { useStreamContext } from '@langchain/react';
import { Composer } from './Composer.tsx';
import { MessageList } from './MessageList.tsx';
import { TypingDots } from './TypingDots.tsx';
import { describeError } from './threadsApi.ts';

const SUGGESTIONS = ['Research LangGraph streaming and calculate (17 + 25) * 3', 'hello'];

export function Conversation({ title, threadId }: { title: string; threadId: string }) {
  const stream = useStreamContext();
  const messages = useMemo(() => stream.messages.filter((m) => m != null), [stream.messages]);
  const subagents = useMemo(() => [...stream.subagents.values()], [stream.subagents]);
  const [dismissedError, setDismissedError] = useState<unknown>(undefined);
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);

  // Follow the newest tokens (the subagents' panels grow on their own) unless the person has scrolled up to read.
  useEffect(() => {
    const element = scroller.current;
    if (!element || !content.current) return;
    const follow = new ResizeObserver(() => {
      if (pinned.current) element.scrollTop = element.scrollHeight;
    });
    follow.observe(content.current);
    return () => follow.disconnect();
  }, []);

  const send = (text: string) => {
    pinned.current = true;
    void stream.submit({ messages: [{ type: 'human', content: text }] });
  };

  const error =
    stream.error !== undefined && stream.error !== null && stream.error !== dismissedError ? stream.error : undefined;

  return (
    <section className="conversation" data-testid="conversation" data-thread-id={threadId} aria-busy={stream.isLoading}>
      <header className="conversation-head">
        <h1 data-testid="conversation-title">{title}</h1>
        {stream.isLoading ? <span className="badge running">Working…</span> : null}
      </header>
      <div
        className="messages"
        ref={scroller}
        data-testid="messages"
        onScroll={(event) => {
          const el = event.currentTarget;
          pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
        }}
      >
        <div className="messages-inner" ref={content}>
          {stream.isThreadLoading && messages.length === 0 ? (
            <p className="muted center">Loading the conversation…</p>
          ) : null}
          {!stream.isThreadLoading && messages.length === 0 && !stream.isLoading ? (
            <div className="empty">
              <p>
                Ask the coordinator something. It delegates research to <b>researcher</b> and arithmetic to{' '}
                <b>math-whiz</b>, and you watch each of them work.
              </p>
              <div className="suggestions">
                {SUGGESTIONS.map((s) => (
                  <button type="button" key={s} onClick={() => send(s)}>
                    {s}
                  </button>
                ))}
              </div>
            </div>
          ) : null}
          <MessageList messages={messages} subagents={subagents} isLoading={stream.isLoading} />
          {stream.isLoading && lastIsHuman(messages) ? <TypingDots /> : null}
          {error !== undefined ? (
            <div className="error-banner inline" role="alert" data-testid="error-banner">
              <span>{describeError(error)}</span>
              <button
                type="button"
                className="error-dismiss"
                aria-label="Dismiss"
                onClick={() => setDismissedError(error)}
              >
                ×
              </button>
            </div>
          ) : null}
        </div>
      </div>
      <Composer disabled={stream.isLoading} onSend={send} />
    </section>
  );
}

function lastIsHuman(messages: { type: string }[]): boolean {
  return messages.length === 0 || messages[messages.length - 1]!.type === 'human';
}
