// The sign-in form the pages share: an API key, checked against the service's GET …/workspaces
// (which also says whether the key must name a workspace). The page says what to paste (`hint`);
// the key stays in the browser (./credentials.ts).
import { useState, type FormEvent, type ReactNode } from 'react';
import { credentialsFor, type Credentials, type Workspace } from './credentials.ts';
import './signin.css';

export interface SignInProps {
  title: string;
  /** What key to paste, and where to find one. */
  hint: ReactNode;
  /** The key's workspaces; throws an Error whose message says why a key is refused. */
  listWorkspaces(apiKey: string): Promise<Workspace[]>;
  onSignIn(credentials: Credentials): void;
  /** A workspace to act in when the key has several and this is one of them. */
  suggestedWorkspace?: string | null;
  /** Why the person is asked (again), e.g. a key the server no longer takes. */
  notice?: string | null;
}

export function SignIn({
  title,
  hint,
  listWorkspaces,
  onSignIn,
  suggestedWorkspace = null,
  notice = null,
}: SignInProps) {
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const key = apiKey.trim();
    setBusy(true);
    setError(null);
    try {
      onSignIn(credentialsFor(key, await listWorkspaces(key), suggestedWorkspace));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="signin-page">
      <form className="signin card" onSubmit={submit} data-testid="sign-in">
        <h1>{title}</h1>
        <div className="signin-hint muted">{hint}</div>
        {notice && !error ? (
          <p className="signin-notice" role="status" data-testid="sign-in-notice">
            {notice}
          </p>
        ) : null}
        <label>
          API key
          <input
            data-testid="api-key"
            type="password"
            autoComplete="off"
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value)}
            placeholder="lsk_…"
            autoFocus
          />
        </label>
        {error && (
          <p className="signin-error error" role="alert" data-testid="sign-in-error">
            {error}
          </p>
        )}
        <button
          type="submit"
          className="signin-submit primary"
          disabled={busy || !apiKey.trim()}
          data-testid="sign-in-submit"
        >
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
