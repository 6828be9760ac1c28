// The page's frame: the conversations in a sidebar (GET /api/threads), the open one in the main
// pane, its id kept in the URL (`?thread=<id>`) so a reload resumes it. Each thread gets its own
// `@langchain/react` stream over HttpAgentServerAdapter, which hydrates it from GET …/state.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { HttpAgentServerAdapter, StreamProvider, type StreamProviderCustomProps } from '@langchain/react';
import { Conversation } from './Conversation.tsx';
import { ThreadList } from './ThreadList.tsx';
import { ASSISTANT_ID, apiUrl, createThread, deleteThread, describeError, listThreads, type ThreadSummary } from './threadsApi.ts';

const threadInUrl = (): string | null => new URLSearchParams(location.search).get('thread');

function showThreadInUrl(id: string, how: 'push' | 'replace'): void {
  if (threadInUrl() === id) return;
  const url = new URL(location.href);
  url.searchParams.set('thread', id);
  if (how === 'push') history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

export function ChatApp() {
  const [threads, setThreads] = useState<ThreadSummary[] | null>(null);
  const [threadId, setThreadId] = useState<string | null>(threadInUrl);
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  const refreshThreads = useCallback(async () => {
    try {
      setThreads(await listThreads());
    } catch (err) {
      setError(describeError(err));
    }
  }, []);

  const open = useCallback((id: string, how: 'push' | 'replace' = 'push') => {
    showThreadInUrl(id, how);
    setThreadId(id);
  }, []);

  const startNewThread = useCallback(async () => {
    try {
      const id = await createThread();
      open(id);
      await refreshThreads();
    } catch (err) {
      setError(describeError(err));
    }
  }, [open, refreshThreads]);

  // First visit: the newest conversation, or a new one when there is none. With ?thread=, that one.
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void (async () => {
      try {
        const list = await listThreads();
        setThreads(list);
        if (threadInUrl()) return;
        if (list[0]) open(list[0].id, 'replace');
        else {
          open(await createThread(), 'replace');
          setThreads(await listThreads());
        }
      } catch (err) {
        setThreads([]);
        setError(describeError(err));
      }
    })();
  }, [open]);

  useEffect(() => {
    const onPopState = () => setThreadId(threadInUrl());
    window.addEventListener('popstate', onPopState);
    return () => window.removeEventListener('popstate', onPopState);
  }, []);

  const remove = useCallback(
    async (id: string) => {
      try {
        await deleteThread(id);
        const list = await listThreads();
        setThreads(list);
        if (id !== threadId) return;
        if (list[0]) open(list[0].id, 'replace');
        else {
          open(await createThread(), 'replace');
          setThreads(await listThreads());
        }
      } catch (err) {
        setError(describeError(err));
      }
    },
    [threadId, open],
  );

  const transport = useMemo(
    () =>
      threadId
        ? new HttpAgentServerAdapter({
            apiUrl: apiUrl(),
            threadId,
            paths: { commands: (id) => `/threads/${id}/commands`, stream: (id) => `/threads/${id}/stream`, state: (id) => `/threads/${id}/state` },
          })
        : null,
    [threadId],
  );

  // run.start must name the app's assistant. The client's types allow an assistant id only
  // beside its built-in transports, though its controller sends one given with an adapter too.
  const streamProps = transport
    ? ({ transport, threadId, assistantId: ASSISTANT_ID, onCreated: refreshThreads, onCompleted: refreshThreads } as unknown as Omit<StreamProviderCustomProps, 'children'>)
    : null;
  const title = threads?.find((t) => t.id === threadId)?.title ?? 'New conversation';

  return (
    <div className="app">
      <ThreadList threads={threads} activeId={threadId} onOpen={open} onNew={startNewThread} onDelete={remove} />
      <main className="main">
        {error ? (
          <div className="error-banner" role="alert" data-testid="error-banner">
            <span>{error}</span>
            <button type="button" className="error-dismiss" aria-label="Dismiss" onClick={() => setError(null)}>
              ×
            </button>
          </div>
        ) : null}
        {streamProps && threadId ? (
          <StreamProvider key={threadId} {...streamProps}>
            <Conversation title={title} threadId={threadId} />
          </StreamProvider>
        ) : (
          <div className="placeholder">Loading conversations…</div>
        )}
      </main>
    </div>
  );
}
