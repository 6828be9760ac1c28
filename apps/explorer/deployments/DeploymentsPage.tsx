// Deployments: the control plane's agent-server deployments (one GET /v2/deployments: each carries
// its latest revision's status), their URLs, a deployment's revisions with what each status means,
// delete (soft, then force) after a confirmation. The control plane is another process: when it is
// not running, the page says so and how to start it.
import { useState } from 'react';
import { ApiError, type Credentials } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { when } from '../core/format.ts';
import { EmptyCard, ListState, ListTable } from '../core/ListState.tsx';
import { usePolledLoad } from '../core/usePolledLoad.ts';
import {
  deleteDeployment,
  FINAL_REVISION_STATUSES,
  listDeployments,
  listRevisions,
  type Deployment,
} from './deploymentsApi.ts';
import './deployments.css';

const POLL_MS = 2000;
const DEPLOYMENT_COLUMNS = ['Name', 'Status', 'Latest revision', 'URL', 'Created', 'Updated', ''];
const REVISION_COLUMNS = ['Revision', 'Status', 'Source', 'Created', 'Updated', 'What it means'];

/** Something still moving: a rollout under way, a database being made, a deletion not done. */
const moving = (d: Deployment) =>
  d.status === 'AWAITING_DATABASE' ||
  d.status === 'AWAITING_DELETE' ||
  (d.latest_revision_status != null && !FINAL_REVISION_STATUSES.has(d.latest_revision_status));

export function DeploymentsPage({ credentials }: { credentials: Credentials }) {
  const load = usePolledLoad(() => listDeployments(credentials), [credentials.apiKey, credentials.workspaceId], {
    everyMs: POLL_MS,
    keepPolling: (list) => list.some(moving),
  });
  const [open, setOpen] = useState<string | null>(null);
  return (
    <section className="deployments-page">
      <div className="page-head">
        <h2>Deployments</h2>
        <button type="button" className="ghost" data-testid="refresh-deployments" onClick={load.refresh}>
          Refresh
        </button>
      </div>
      <ListState
        load={load}
        what="deployments"
        onRetry={load.refresh}
        error={(error) =>
          error.code === 'CONTROL_PLANE_UNAVAILABLE' ? <NotRunning error={error} onRetry={load.refresh} /> : undefined
        }
        empty={<EmptyState />}
      >
        {(list) => (
          <ListTable testId="deployments-table" columns={DEPLOYMENT_COLUMNS}>
            <tbody>
              {list.map((d) => (
                <DeploymentRow
                  key={d.id}
                  credentials={credentials}
                  d={d}
                  open={open === d.id}
                  onToggle={() => setOpen(open === d.id ? null : d.id)}
                  onChanged={load.refresh}
                />
              ))}
            </tbody>
          </ListTable>
        )}
      </ListState>
    </section>
  );
}

function DeploymentRow({
  credentials,
  d,
  open,
  onToggle,
  onChanged,
}: {
  credentials: Credentials;
  d: Deployment;
  open: boolean;
  onToggle: () => void;
  onChanged: () => void;
}) {
  const url = d.source_config.custom_url;
  return (
    <>
      <tr data-testid="deployment-row" data-deployment-id={d.id}>
        <td>
          <button type="button" className="link" data-testid="deployment-name" aria-expanded={open} onClick={onToggle}>
            {open ? '▾' : '▸'} {d.name}
          </button>
        </td>
        <td>
          <StatusBadge status={d.status} testId="deployment-status" />
        </td>
        <td>
          {d.latest_revision_status ? <StatusBadge status={d.latest_revision_status} testId="revision-status" /> : '—'}
        </td>
        <td className="url">
          {url ? (
            <a href={url} target="_blank" rel="noreferrer" data-testid="deployment-url">
              {url}
            </a>
          ) : (
            '—'
          )}
        </td>
        <td className="wrap">{when(d.created_at)}</td>
        <td className="wrap">{when(d.updated_at)}</td>
        <td>
          <DeleteButton credentials={credentials} d={d} onDeleted={onChanged} />
        </td>
      </tr>
      {open && (
        <tr className="revisions-row">
          <td colSpan={7}>
            <Revisions credentials={credentials} d={d} />
          </td>
        </tr>
      )}
    </>
  );
}

function Revisions({ credentials, d }: { credentials: Credentials; d: Deployment }) {
  const revisions = usePolledLoad(
    () => listRevisions(credentials, d.id),
    [credentials.apiKey, credentials.workspaceId, d.id],
    {
      everyMs: POLL_MS,
      keepPolling: (list) => list.some((r) => !FINAL_REVISION_STATUSES.has(r.status)),
    },
  );
  return (
    <ListState
      load={revisions}
      what="revisions"
      onRetry={revisions.refresh}
      empty={<p className="muted">No revisions.</p>}
    >
      {(list) => (
        <ListTable testId="revisions-table" className="revisions" columns={REVISION_COLUMNS}>
          <tbody>
            {list.map((r) => (
              <tr key={r.id} data-testid="revision-row">
                <td>
                  <code title={r.id}>{r.id.slice(0, 8)}</code>
                  {r.id === d.active_revision_id && <span className="tag">active</span>}
                </td>
                <td>
                  <StatusBadge status={r.status} testId="revision-row-status" />
                </td>
                <td>{r.source}</td>
                <td>{when(r.created_at)}</td>
                <td>{when(r.updated_at)}</td>
                <td className="status-message" data-testid="revision-message">
                  {r.status_message ?? ''}
                </td>
              </tr>
            ))}
          </tbody>
        </ListTable>
      )}
    </ListState>
  );
}

function StatusBadge({ status, testId }: { status: string; testId: string }) {
  const kind =
    status === 'READY' || status === 'DEPLOYED'
      ? 'status-success'
      : status.includes('FAILED') || status === 'UNKNOWN'
        ? 'status-error'
        : status === 'AWAITING_DELETE' || status === 'SKIPPED' || status === 'INTERRUPTED' || status === 'UNUSED'
          ? 'status-neutral'
          : '';
  return (
    <span className={`status ${kind}`} data-testid={testId}>
      {status}
    </span>
  );
}

/** Delete after a second press: a soft delete first (AWAITING_DELETE), then "force" removes the record. */
function DeleteButton({
  credentials,
  d,
  onDeleted,
}: {
  credentials: Credentials;
  d: Deployment;
  onDeleted: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const force = d.status === 'AWAITING_DELETE';
  if (!confirming)
    return (
      <button type="button" className="ghost small" data-testid="delete-deployment" onClick={() => setConfirming(true)}>
        {force ? 'Force delete' : 'Delete'}
      </button>
    );
  return (
    <span className="confirm" data-testid="delete-confirmation">
      {force ? 'Remove its record for good?' : 'Delete it? Its agent server stops.'}{' '}
      <button
        type="button"
        className="danger small"
        data-testid="confirm-delete"
        onClick={() =>
          deleteDeployment(credentials, d.id, force).then(
            () => {
              setConfirming(false);
              onDeleted();
            },
            (err: ApiError) => setError(err),
          )
        }
      >
        {force ? 'Force delete' : 'Delete'}
      </button>{' '}
      <button type="button" className="ghost small" onClick={() => setConfirming(false)}>
        Keep
      </button>
      {error && <ErrorBox error={error} />}
    </span>
  );
}

function NotRunning({ error, onRetry }: { error: ApiError; onRetry: () => void }) {
  return (
    <div className="empty card not-running" data-testid="control-plane-down" role="alert">
      <h3>The control plane is not running</h3>
      <p>
        Deployments live in the control plane, a process of its own beside this tracing API. Start it, then try again:
      </p>
      <pre>{`npm start                                   # starts it with everything else
node services/processes/controlPlaneMain.ts     # or alone (port CONTROL_PLANE_PORT, 1985)`}</pre>
      <p className="muted">{error.message}</p>
      <button type="button" className="primary" data-testid="retry-deployments" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}

function EmptyState() {
  return (
    <EmptyCard testId="deployments-empty" title="No deployments yet">
      <p>
        Deploy an agent server with the <code>langgraph</code> CLI or the control plane's API (port 1985 by default, its
        reference at <code>/docs</code> there), for example from a git repository holding a <code>langgraph.json</code>:
      </p>
      <pre>{`curl -X POST http://127.0.0.1:1985/v2/deployments -H "x-api-key: $KEY" -H 'content-type: application/json' -d '{
  "name": "my-agent", "source": "github", "secrets": [],
  "source_config": {"repo_url": "file:///path/to/repo", "deployment_type": "dev"},
  "source_revision_config": {"repo_ref": "main", "langgraph_config_path": "langgraph.json"}}'`}</pre>
    </EmptyCard>
  );
}
