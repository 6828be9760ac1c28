// The page's frame. First who the person is: an API key of the platform (the shared sign-in,
// ../shared/SignIn.tsx, kept in this browser as the explorer keeps its own), unless the app takes
// no keys (CHAT_APP_AUTH=none). Then the conversations of the key's workspace in a sidebar
// (GET /api/threads), with the workspace and a sign-out below them, and the open one in the main
// pane, its id kept in the URL (`?thread=<id>`) so a reload resumes it. Each thread gets its own
// `@langchain/react` stream over HttpAgentServerAdapter, signed with the same headers, which
// hydrates it from GET …/state.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { HttpAgentServerAdapter, StreamProvider, type StreamProviderCustomProps } from '@langchain/react';
import { authHeaders, credentialStore, type Credentials, type Workspace } from '../shared/credentials.ts';
import { SignIn } from '../shared/SignIn.tsx';
import { Conversation } from './Conversation.tsx';
import { ThreadList } from './ThreadList.tsx';
import {
  ASSISTANT_ID,
  apiUrl,
  createThread,
  deleteThread,
  describeError,
  KeyRefusedError,
  listThreads,
  listWorkspaces,
  opensWithoutKey,
  type Caller,
  type ThreadSummary,
} from './threadsApi.ts';

const threadInUrl = (): string | null => new URLSearchParams(location.search).get('thread');

function showThreadInUrl(id: string, how: 'push' | 'replace'): void {
  if (threadInUrl() === id) return;
  const url = new URL(location.href);
  url.searchParams.set('thread', id);
  if (how === 'push') history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

/** A thread of one workspace means nothing in another: the URL forgets it on sign-out and on a switch. */
function forgetThreadInUrl(): void {
  const url = new URL(location.href);
  url.searchParams.delete('thread');
  history.replaceState(null, '', url);
}

const stored = credentialStore('chat');

type Access = { state: 'checking' } | { state: 'sign-in'; notice: string | null } | { state: 'in'; caller: Caller };

export function ChatApp() {
  const [access, setAccess] = useState<Access>(() => {
    const credentials = stored.load();
    return credentials ? { state: 'in', caller: credentials } : { state: 'checking' };
  });

  // Without a stored key: does this app take keys at all?
  useEffect(() => {
    if (access.state !== 'checking') return;
    opensWithoutKey().then(
      (open) => setAccess(open ? { state: 'in', caller: null } : { state: 'sign-in', notice: null }),
      (err: unknown) => setAccess({ state: 'sign-in', notice: describeError(err) }),
    );
  }, [access.state]);

  const signIn = useCallback((credentials: Credentials) => {
    stored.save(credentials);
    setAccess({ state: 'in', caller: credentials });
  }, []);
  const signOut = useCallback((notice: string | null = null) => {
    stored.save(null);
    forgetThreadInUrl();
    setAccess({ state: 'sign-in', notice });
  }, []);
  const switchWorkspace = useCallback(
    (credentials: Credentials) => {
      forgetThreadInUrl();
      signIn(credentials);
    },
    [signIn],
  );

  if (access.state === 'checking') return <div className="placeholder full">Connecting to the chat server…</div>;
  if (access.state === 'sign-in')
    return (
      <SignIn
        title="Deep agent chat"
        hint={<SignInHint />}
        listWorkspaces={listWorkspaces}
        onSignIn={signIn}
        notice={access.notice}
      />
    );
  // A new workspace is a new page: its own threads, its own streams.
  return (
    <Chat
      key={access.caller?.workspaceId ?? 'its-only-workspace'}
      caller={access.caller}
      onSignOut={signOut}
      onSwitchWorkspace={switchWorkspace}
    />
  );
}

/** What to paste: the key `npm start` printed. */
function SignInHint() {
  return (
    <>
      <p>
        Sign in with an API key of the platform. Your conversations are kept in that key's workspace, apart from
        everyone else's.
      </p>
      <p>
        Started with <code>npm start</code>? Paste the key it printed after <b>API key for the default workspace:</b>{' '}
        (it is also in <code>.local/dev-api-key</code>). It stays in this browser only.
      </p>
    </>
  );
}

interface ChatProps {
  caller: Caller;
  onSignOut(notice?: string | null): void;
  onSwitchWorkspace(credentials: Credentials): void;
}

function Chat({ caller, onSignOut, onSwitchWorkspace }: ChatProps) {
  const [threads, setThreads] = useState<ThreadSummary[] | null>(null);
  const [threadId, setThreadId] = useState<string | null>(threadInUrl);
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  /** A failure in words; a refused key signs the person out, saying so. */
  const fail = useCallback(
    (err: unknown) => {
      if (err instanceof KeyRefusedError) onSignOut(err.message);
      else setError(describeError(err));
    },
    [onSignOut],
  );

  const refreshThreads = useCallback(async () => {
    try {
      setThreads(await listThreads(caller));
    } catch (err) {
      fail(err);
    }
  }, [caller, fail]);

  const open = useCallback((id: string, how: 'push' | 'replace' = 'push') => {
    showThreadInUrl(id, how);
    setThreadId(id);
  }, []);

  const startNewThread = useCallback(async () => {
    try {
      const id = await createThread(caller);
      open(id);
      await refreshThreads();
    } catch (err) {
      fail(err);
    }
  }, [caller, open, refreshThreads, fail]);

  // First visit: the newest conversation, or a new one when there is none. With ?thread=, that one.
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void (async () => {
      try {
        const list = await listThreads(caller);
        setThreads(list);
        if (threadInUrl()) return;
        if (list[0]) open(list[0].id, 'replace');
        else {
          open(await createThread(caller), 'replace');
          setThreads(await listThreads(caller));
        }
      } catch (err) {
        setThreads([]);
        fail(err);
      }
    })();
  }, [caller, open, fail]);

  useEffect(() => {
    const onPopState = () => setThreadId(threadInUrl());
    window.addEventListener('popstate', onPopState);
    return () => window.removeEventListener('popstate', onPopState);
  }, []);

  const remove = useCallback(
    async (id: string) => {
      try {
        await deleteThread(caller, id);
        const list = await listThreads(caller);
        setThreads(list);
        if (id !== threadId) return;
        if (list[0]) open(list[0].id, 'replace');
        else {
          open(await createThread(caller), 'replace');
          setThreads(await listThreads(caller));
        }
      } catch (err) {
        fail(err);
      }
    },
    [caller, threadId, open, fail],
  );

  const transport = useMemo(
    () =>
      threadId
        ? new HttpAgentServerAdapter({
            apiUrl: apiUrl(),
            threadId,
            defaultHeaders: caller ? authHeaders(caller) : {},
            paths: {
              commands: (id) => `/threads/${id}/commands`,
              stream: (id) => `/threads/${id}/stream`,
              state: (id) => `/threads/${id}/state`,
            },
          })
        : null,
    [threadId, caller],
  );

  // run.start must name the app's assistant. The client's types allow an assistant id only
  // beside its built-in transports, though its controller sends one given with an adapter too.
  const streamProps = transport
    ? ({
        transport,
        threadId,
        assistantId: ASSISTANT_ID,
        onCreated: refreshThreads,
        onCompleted: refreshThreads,
      } as unknown as Omit<StreamProviderCustomProps, 'children'>)
    : null;
  const title = threads?.find((t) => t.id === threadId)?.title ?? 'New conversation';

  return (
    <div className="app">
      <ThreadList
        threads={threads}
        activeId={threadId}
        onOpen={open}
        onNew={startNewThread}
        onDelete={remove}
        account={
          caller ? (
            <Account credentials={caller} onSignOut={() => onSignOut()} onSwitch={onSwitchWorkspace} />
          ) : (
            <p className="account-open">Open to everyone on this machine (no API keys)</p>
          )
        }
      />
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

/** The workspace the key acts in (a switcher when it has several) and the sign-out, under the threads. */
function Account({
  credentials,
  onSignOut,
  onSwitch,
}: {
  credentials: Credentials;
  onSignOut(): void;
  onSwitch(credentials: Credentials): void;
}) {
  const [workspaces, setWorkspaces] = useState<Workspace[] | null>(null);
  useEffect(() => {
    listWorkspaces(credentials.apiKey).then(setWorkspaces, () => setWorkspaces([]));
  }, [credentials.apiKey]);
  const current = workspaces?.find((w) => w.id === credentials.workspaceId) ?? workspaces?.[0];
  return (
    <div className="account" data-testid="account">
      <span className="account-label">Workspace</span>
      {workspaces && workspaces.length > 1 ? (
        <select
          className="workspace-select"
          data-testid="workspace-select"
          aria-label="Workspace"
          value={current?.id ?? ''}
          onChange={(e) => onSwitch({ ...credentials, workspaceId: e.target.value })}
        >
          {workspaces.map((w) => (
            <option key={w.id} value={w.id}>
              {w.display_name}
            </option>
          ))}
        </select>
      ) : (
        <span className="workspace-name" data-testid="workspace-name">
          {current?.display_name ?? '…'}
        </span>
      )}
      <button type="button" className="sign-out" data-testid="sign-out" onClick={onSignOut}>
        Sign out
      </button>
    </div>
  );
}
