// The explorer's shell: sign-in with an API key (kept in localStorage), the workspace a key of
// several workspaces acts in, sign-out, and the view the URL names.
import { useState, type FormEvent } from 'react';
import { apiCall, ApiError, storeCredentials, storedCredentials, type Credentials } from './api.ts';
import { linkProps, useRoute } from './route.ts';
import { ProjectsPage } from './ProjectsPage.tsx';
import { TracesPage } from './TracesPage.tsx';
import { TracePage, RunRedirect } from './TracePage.tsx';

export function ExplorerApp() {
  const [credentials, setCredentials] = useState<Credentials | null>(storedCredentials);
  const route = useRoute();
  const signIn = (c: Credentials | null) => {
    storeCredentials(c);
    setCredentials(c);
  };
  // A run link names the workspace the run is in: a key of several workspaces acts there.
  const linkedWorkspace = route.page === 'run' ? route.workspaceId : null;
  if (!credentials) return <SignIn onSignIn={signIn} suggestedWorkspace={linkedWorkspace} />;
  return (
    <div className="shell">
      <header className="topbar">
        <a className="brand" {...linkProps({ page: 'projects', search: '' })}>
          Trace explorer
        </a>
        <WorkspaceSwitcher credentials={credentials} onChange={signIn} />
        <button type="button" className="ghost" data-testid="sign-out" onClick={() => signIn(null)}>
          Sign out
        </button>
      </header>
      <main className="content">
        {route.page === 'projects' && <ProjectsPage credentials={credentials} search={route.search} />}
        {route.page === 'traces' && <TracesPage credentials={credentials} route={route} />}
        {route.page === 'trace' && <TracePage credentials={credentials} route={route} />}
        {route.page === 'run' && <RunRedirect credentials={credentials} route={route} />}
      </main>
    </div>
  );
}

function SignIn({ onSignIn, suggestedWorkspace }: { onSignIn: (c: Credentials) => void; suggestedWorkspace: string | null }) {
  const [apiKey, setApiKey] = useState('');
  const [workspaceId, setWorkspaceId] = useState(suggestedWorkspace ?? '');
  const [needsWorkspace, setNeedsWorkspace] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const candidate = { apiKey: apiKey.trim(), workspaceId: workspaceId.trim() || null };
    setBusy(true);
    setError(null);
    try {
      // Any authenticated read tells whether the key (and workspace) is accepted.
      await apiCall(candidate, 'GET', '/sessions?limit=1');
      onSignIn(candidate);
    } catch (err) {
      const apiErr = err as ApiError;
      if (apiErr.code === 'TENANT_ID_REQUIRED') setNeedsWorkspace(true);
      setError(apiErr.message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="signin-page">
      <form className="signin card" onSubmit={submit} data-testid="sign-in">
        <h1>Trace explorer</h1>
        <p className="muted">Sign in with an API key of this server. It stays in this browser only.</p>
        <label>
          API key
          <input data-testid="api-key" type="password" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} placeholder="lsv2_…" autoFocus />
        </label>
        {(needsWorkspace || workspaceId) && (
          <label>
            Workspace id
            <input data-testid="workspace-id" value={workspaceId} onChange={(e) => setWorkspaceId(e.target.value)} placeholder="UUID of the workspace" />
          </label>
        )}
        {error && (
          <p className="error" role="alert" data-testid="sign-in-error">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy || !apiKey.trim()} data-testid="sign-in-submit">
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}

/**
 * The workspace the key acts in. No API route lists a key's workspaces yet, so the id is typed;
 * a key of one workspace needs none.
 */
function WorkspaceSwitcher({ credentials, onChange }: { credentials: Credentials; onChange: (c: Credentials) => void }) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(credentials.workspaceId ?? '');
  if (!editing)
    return (
      <button type="button" className="workspace ghost" data-testid="workspace" onClick={() => setEditing(true)} title="Switch workspace">
        {credentials.workspaceId ? `Workspace ${credentials.workspaceId.slice(0, 8)}…` : "Key's workspace"}
      </button>
    );
  return (
    <form
      className="workspace-form"
      onSubmit={(e) => {
        e.preventDefault();
        onChange({ ...credentials, workspaceId: value.trim() || null });
        setEditing(false);
      }}
    >
      <input data-testid="workspace-input" value={value} onChange={(e) => setValue(e.target.value)} placeholder="workspace UUID (empty: the key's only one)" />
      <button type="submit" className="ghost">
        Switch
      </button>
    </form>
  );
}

/** An API failure in words, with what to do when the key is the problem. */
export function ErrorBox({ error }: { error: ApiError }) {
  const hint = error.status === 401 ? ' Sign out and sign in with a valid API key.' : error.status === 403 || error.code === 'TENANT_ID_REQUIRED' ? ' Switch to a workspace of this key.' : '';
  return (
    <div className="error-box" role="alert" data-testid="error">
      <strong>{error.code}</strong> {error.message}
      {hint}
    </div>
  );
}
