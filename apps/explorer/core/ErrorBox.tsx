// How a failed API call reads on every page: the API's code and message, and what to do when the
// key or the workspace is the problem.
import type { ApiError } from './api.ts';

/** An API failure in words, with what to do when the key is the problem. */
export function ErrorBox({ error }: { error: ApiError }) {
  const hint =
    error.status === 401
      ? ' Sign out and sign in with a valid API key.'
      : error.status === 403 || error.code === 'TENANT_ID_REQUIRED'
        ? ' Switch to a workspace of this key.'
        : '';
  return (
    <div className="error-box" role="alert" data-testid="error">
      <strong>{error.code}</strong> {error.message}
      {hint}
    </div>
  );
}
