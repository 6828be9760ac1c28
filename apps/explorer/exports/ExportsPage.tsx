// Bulk exports: the workspace's exports with their status and progress (one GET /bulk-exports:
// each export carries the sums of its runs), a form to create a one-time or scheduled export, an
// export's runs with their errors, cancel; and the destinations, with a form whose credentials are
// write-only: uncontrolled inputs (React would copy a controlled input's value into the page's
// HTML) cleared once sent, and never read back (the API answers only the names of the fields).
import { useState, type FormEvent, type ReactNode } from 'react';
import { ApiError, type Credentials } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { count, dash, when } from '../core/format.ts';
import { linkProps, navigate } from '../core/route.ts';
import { usePolledLoad } from '../core/usePolledLoad.ts';
import { useLoad } from '../core/useLoad.ts';
import {
  cancelExport,
  createDestination,
  createExport,
  FINAL_STATUSES,
  getExport,
  listDestinations,
  listExportRuns,
  listExports,
  listProjectNames,
  type BulkExport,
  type Destination,
  type ExportRun,
  type ProjectName,
} from './exportsApi.ts';
import './exports.css';

/** How often a list with work under way is read again. */
const POLL_MS = 1500;

export function ExportsPage({ credentials, exportId }: { credentials: Credentials; exportId: string | null }) {
  const workspace = [credentials.apiKey, credentials.workspaceId];
  const destinations = usePolledLoad(() => listDestinations(credentials), workspace, { everyMs: POLL_MS, keepPolling: () => false });
  const projects = useLoad(() => listProjectNames(credentials), workspace);
  const names = {
    destination: (id: string) => (destinations.state === 'done' ? destinations.value.find((d) => d.id === id)?.display_name : undefined) ?? id,
    project: (id: string) => (projects.state === 'done' ? projects.value.find((p) => p.id === id)?.name : undefined) ?? id,
  };
  if (exportId) return <ExportDetail credentials={credentials} exportId={exportId} names={names} />;
  return (
    <section className="exports-page">
      <ExportsSection credentials={credentials} names={names} destinations={destinations.state === 'done' ? destinations.value : []} projects={projects.state === 'done' ? projects.value : []} />
      <DestinationsSection credentials={credentials} load={destinations} />
    </section>
  );
}

interface Names {
  destination: (id: string) => string;
  project: (id: string) => string;
}

// ---- exports ----

function ExportsSection({ credentials, names, destinations, projects }: { credentials: Credentials; names: Names; destinations: Destination[]; projects: ProjectName[] }) {
  const exports = usePolledLoad(() => listExports(credentials), [credentials.apiKey, credentials.workspaceId], {
    everyMs: POLL_MS,
    keepPolling: (list) => list.some((e) => e.status === 'Created' || e.status === 'Running' || e.status === 'IntervalScheduled'),
  });
  const [creating, setCreating] = useState(false);
  return (
    <>
      <div className="page-head">
        <h2>Bulk exports</h2>
        <button type="button" className="primary" data-testid="new-export" onClick={() => setCreating(!creating)} disabled={destinations.length === 0} title={destinations.length === 0 ? 'Create a destination first' : undefined}>
          New export
        </button>
      </div>
      {creating && (
        <NewExportForm
          credentials={credentials}
          destinations={destinations}
          projects={projects}
          onDone={(created) => {
            setCreating(false);
            exports.refresh();
            if (created) navigate({ page: 'exports', exportId: created.id });
          }}
        />
      )}
      {exports.state === 'loading' && <p className="muted">Loading exports…</p>}
      {exports.state === 'error' && <Retry error={exports.error} onRetry={exports.refresh} />}
      {exports.state === 'done' && exports.value.length === 0 && (
        <div className="empty card" data-testid="exports-empty">
          <h3>No exports yet</h3>
          <p>
            An export writes a project's runs for a time range, once or every few hours, as Parquet files into a bucket of yours.{' '}
            {destinations.length === 0 ? 'Create a destination below (a bucket and a key that may write to it), then a new export.' : 'Press "New export" to create one.'}
          </p>
        </div>
      )}
      {exports.state === 'done' && exports.value.length > 0 && (
        <table className="table" data-testid="exports-table">
          <thead>
            <tr>
              <th>Status</th>
              <th>Project</th>
              <th>Destination</th>
              <th>Time window</th>
              <th>Schedule</th>
              <th>Progress</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {exports.value.map((e) => (
              <tr key={e.id} data-testid="export-row" data-export-id={e.id}>
                <td>
                  <a {...linkProps({ page: 'exports', exportId: e.id })} data-testid="export-link">
                    <ExportStatusBadge status={e.status} />
                  </a>
                </td>
                <td>{names.project(e.session_id)}</td>
                <td>{names.destination(e.bulk_export_destination_id)}</td>
                <td className="wrap">{windowText(e)}</td>
                <td data-testid="export-schedule">{scheduleText(e)}</td>
                <td data-testid="export-progress" className="progress-cell">
                  <Progress e={e} />
                </td>
                <td className="wrap">{when(e.created_at)}</td>
                <td>
                  <CancelButton credentials={credentials} e={e} onCancelled={exports.refresh} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

const windowText = (e: BulkExport) => (e.end_time ? `${when(e.start_time)} → ${when(e.end_time)}` : `from ${when(e.start_time)}`);
const scheduleText = (e: BulkExport) => (e.interval_hours === null ? 'once' : `every ${e.interval_hours} h`);

function Progress({ e }: { e: BulkExport }) {
  const p = e.progress;
  const runs = p.runs_planned === null ? `${count(p.runs_completed)} runs done` : `${count(p.runs_completed)}/${count(p.runs_planned)} runs`;
  const ratio = p.runs_planned ? p.runs_completed / p.runs_planned : null;
  return (
    <>
      {ratio !== null && (
        <span className="bar" aria-hidden="true">
          <span style={{ width: `${Math.round(ratio * 100)}%` }} />
        </span>
      )}
      <span>
        {runs} · {count(p.rows_written)} rows · {count(p.files_written)} {p.files_written === 1 ? 'file' : 'files'}
        {p.runs_failed > 0 && <span className="bad"> · {p.runs_failed} failed</span>}
      </span>
      {p.last_error && !FINAL_STATUSES.has(e.status) && (
        <span className="last-error" title={p.last_error}>
          retrying after: {p.last_error}
        </span>
      )}
      {p.last_error && (e.status === 'Failed' || e.status === 'TimedOut') && (
        <span className="last-error" title={p.last_error}>
          {p.last_error}
        </span>
      )}
    </>
  );
}

export function ExportStatusBadge({ status }: { status: string }) {
  const kind = status === 'Completed' ? 'status-success' : status === 'Failed' || status === 'TimedOut' ? 'status-error' : status === 'Cancelled' ? 'status-neutral' : '';
  return (
    <span className={`status ${kind}`} data-testid="export-status">
      {status === 'IntervalScheduled' ? 'Scheduled' : status}
    </span>
  );
}

/** Cancel, after a second press: it is final (finished runs and their files stay). */
function CancelButton({ credentials, e, onCancelled }: { credentials: Credentials; e: BulkExport; onCancelled: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  if (FINAL_STATUSES.has(e.status)) return null;
  if (!confirming)
    return (
      <button type="button" className="ghost small" data-testid="cancel-export" onClick={() => setConfirming(true)}>
        Cancel
      </button>
    );
  return (
    <span className="confirm">
      Cancel for good?{' '}
      <button
        type="button"
        className="danger small"
        data-testid="confirm-cancel-export"
        onClick={() =>
          cancelExport(credentials, e.id).then(
            () => {
              setConfirming(false);
              onCancelled();
            },
            (err: ApiError) => setError(err),
          )
        }
      >
        Cancel export
      </button>{' '}
      <button type="button" className="ghost small" onClick={() => setConfirming(false)}>
        Keep
      </button>
      {error && <ErrorBox error={error} />}
    </span>
  );
}

/** A datetime-local input's value (local time, to the second) for a moment. */
function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 19);
}

function NewExportForm({ credentials, destinations, projects, onDone }: { credentials: Credentials; destinations: Destination[]; projects: ProjectName[]; onDone: (created: BulkExport | null) => void }) {
  const now = Date.now();
  const [chosen, setForm] = useState({
    projectId: '',
    destinationId: '',
    kind: 'once' as 'once' | 'scheduled',
    start: localInput(Math.floor((now - 86_400_000) / 3_600_000) * 3_600_000),
    end: localInput(Math.floor(now / 1000) * 1000),
    intervalHours: '24',
    formatVersion: 'v1' as 'v1' | 'v2_beta',
    compression: 'gzip',
    filter: '',
  });
  // The first project and destination until one is chosen (the lists may arrive after the form opens).
  const form = { ...chosen, projectId: chosen.projectId || (projects[0]?.id ?? ''), destinationId: chosen.destinationId || (destinations[0]?.id ?? '') };
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const iso = (local: string) => new Date(local).toISOString();
      const created = await createExport(credentials, {
        bulk_export_destination_id: form.destinationId,
        session_id: form.projectId,
        start_time: iso(form.start),
        ...(form.kind === 'once' ? { end_time: iso(form.end) } : { interval_hours: Number(form.intervalHours) }),
        format: 'Parquet',
        format_version: form.formatVersion,
        compression: form.compression,
        ...(form.filter.trim() ? { filter: form.filter.trim() } : {}),
      });
      onDone(created);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'ERROR', String(err)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card form-card" onSubmit={submit} data-testid="export-form">
      <h3>New export</h3>
      {projects.length === 0 && <p className="muted">No project to export yet: send traces first (see Projects).</p>}
      <div className="form-grid">
        <Field label="Project">
          <select data-testid="export-project" value={form.projectId} onChange={set('projectId')} required>
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Destination">
          <select data-testid="export-destination" value={form.destinationId} onChange={set('destinationId')} required>
            {destinations.map((d) => (
              <option key={d.id} value={d.id}>
                {d.display_name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Runs">
          <span className="choice">
            <label>
              <input type="radio" name="kind" data-testid="export-once" checked={form.kind === 'once'} onChange={() => setForm({ ...form, kind: 'once' })} /> once, for a time range
            </label>
            <label>
              <input type="radio" name="kind" data-testid="export-scheduled" checked={form.kind === 'scheduled'} onChange={() => setForm({ ...form, kind: 'scheduled' })} /> on a schedule
            </label>
          </span>
        </Field>
        <Field label="Start (inclusive)">
          <input type="datetime-local" step={1} data-testid="export-start" value={form.start} onChange={set('start')} required />
        </Field>
        {form.kind === 'once' ? (
          <Field label="End (exclusive)">
            <input type="datetime-local" step={1} data-testid="export-end" value={form.end} onChange={set('end')} required />
          </Field>
        ) : (
          <Field label="Every (hours, 1–168)">
            <input type="number" min={1} max={168} data-testid="export-interval" value={form.intervalHours} onChange={set('intervalHours')} required />
          </Field>
        )}
        <Field label="Format">
          <select value="Parquet" disabled>
            <option>Parquet</option>
          </select>
        </Field>
        <Field label="Timestamps">
          <select data-testid="export-format-version" value={form.formatVersion} onChange={set('formatVersion')}>
            <option value="v1">v1: naive, in UTC</option>
            <option value="v2_beta">v2_beta: UTC timezone-aware</option>
          </select>
        </Field>
        <Field label="Compression">
          <select data-testid="export-compression" value={form.compression} onChange={set('compression')}>
            {['gzip', 'zstandard', 'snappy', 'none'].map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </Field>
        <Field label="Filter (optional)" wide>
          <input className="mono" data-testid="export-filter" value={form.filter} onChange={set('filter')} placeholder='eq(run_type, "llm")' />
        </Field>
      </div>
      {form.kind === 'scheduled' && <p className="muted">A window is exported once it has ended; windows since the start come first.</p>}
      {error && <ErrorBox error={error} />}
      <div className="form-actions">
        <button type="submit" className="primary" data-testid="export-submit" disabled={busy || !form.projectId || !form.destinationId}>
          {busy ? 'Creating…' : 'Create export'}
        </button>
        <button type="button" className="ghost" onClick={() => onDone(null)}>
          Close
        </button>
      </div>
    </form>
  );
}

function Field({ label, children, wide }: { label: string; children: ReactNode; wide?: boolean }) {
  return (
    <label className={wide ? 'field wide' : 'field'}>
      <span>{label}</span>
      {children}
    </label>
  );
}

function Retry({ error, onRetry }: { error: ApiError; onRetry: () => void }) {
  return (
    <div className="retry">
      <ErrorBox error={error} />
      <button type="button" className="ghost" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}

// ---- one export ----

function ExportDetail({ credentials, exportId, names }: { credentials: Credentials; exportId: string; names: Names }) {
  const running = (e: BulkExport) => !FINAL_STATUSES.has(e.status);
  const e = usePolledLoad(() => getExport(credentials, exportId), [credentials.apiKey, credentials.workspaceId, exportId], { everyMs: POLL_MS, keepPolling: running });
  const runs = usePolledLoad(() => listExportRuns(credentials, exportId), [credentials.apiKey, credentials.workspaceId, exportId], {
    everyMs: POLL_MS,
    keepPolling: (list) => e.state !== 'done' || running(e.value) || list.some((r) => !FINAL_STATUSES.has(r.status)),
  });
  return (
    <section className="exports-page">
      <nav className="crumbs">
        <a {...linkProps({ page: 'exports' })}>Bulk exports</a> / <span>Export {exportId.slice(0, 8)}</span>
      </nav>
      {e.state === 'loading' && <p className="muted">Loading the export…</p>}
      {e.state === 'error' && <Retry error={e.error} onRetry={e.refresh} />}
      {e.state === 'done' && (
        <div className="card export-detail" data-testid="export-detail">
          <header>
            <ExportStatusBadge status={e.value.status} />
            <h2>{names.project(e.value.session_id)}</h2>
            <span className="spacer" />
            <CancelButton
              credentials={credentials}
              e={e.value}
              onCancelled={() => {
                e.refresh();
                runs.refresh();
              }}
            />
          </header>
          <dl className="facts">
            <dt>Destination</dt>
            <dd>{names.destination(e.value.bulk_export_destination_id)}</dd>
            <dt>Time window</dt>
            <dd>{windowText(e.value)}</dd>
            <dt>Schedule</dt>
            <dd data-testid="export-schedule">{scheduleText(e.value)}</dd>
            <dt>Format</dt>
            <dd>
              {e.value.format} ({e.value.format_version}), {e.value.compression}
            </dd>
            <dt>Filter</dt>
            <dd>{e.value.filter ? <code>{e.value.filter}</code> : 'every run'}</dd>
            <dt>Progress</dt>
            <dd data-testid="export-progress" className="progress-cell">
              <Progress e={e.value} />
            </dd>
            <dt>Created</dt>
            <dd>{when(e.value.created_at)}</dd>
            <dt>Finished</dt>
            <dd>{when(e.value.finished_at)}</dd>
          </dl>
        </div>
      )}
      <h3 className="section-title">Runs</h3>
      {runs.state === 'error' && <Retry error={runs.error} onRetry={runs.refresh} />}
      {runs.state === 'done' && runs.value.length === 0 && (
        <p className="muted" data-testid="runs-empty">
          No runs yet: a window's run is created once the window has ended (plus a few minutes for late traces), one run per UTC day.
        </p>
      )}
      {runs.state === 'done' && runs.value.length > 0 && <RunsTable runs={runs.value} />}
    </section>
  );
}

function RunsTable({ runs }: { runs: ExportRun[] }) {
  return (
    <table className="table" data-testid="runs-table">
      <thead>
        <tr>
          <th>Status</th>
          <th>Range</th>
          <th className="num">Attempt</th>
          <th className="num">Rows</th>
          <th className="num">Files</th>
          <th className="num">Bytes</th>
          <th>Finished</th>
          <th>Errors</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.id} data-testid="run-row">
            <td>
              <ExportStatusBadge status={r.status} />
            </td>
            <td title={r.metadata.result.export_path}>
              {when(r.start_time)} → {when(r.end_time)}
            </td>
            <td className="num">{r.retry_number + 1}</td>
            <td className="num" data-testid="run-rows">
              {count(r.metadata.result.rows_written)}
            </td>
            <td className="num">{count(r.metadata.result.exported_files.length)}</td>
            <td className="num">{count(r.metadata.result.bytes_written)}</td>
            <td>{when(r.finished_at)}</td>
            <td className="run-errors">
              {Object.keys(r.errors).length === 0
                ? dash
                : Object.entries(r.errors).map(([attempt, text]) => (
                    <div key={attempt} className="bad" data-testid="run-error">
                      {attempt.replace('retry_', 'attempt ')}: {text}
                    </div>
                  ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

// ---- destinations ----

function DestinationsSection({ credentials, load }: { credentials: Credentials; load: ReturnType<typeof usePolledLoad<Destination[]>> }) {
  const [creating, setCreating] = useState(false);
  return (
    <>
      <div className="page-head section-head">
        <h2>Destinations</h2>
        <button type="button" className="ghost" data-testid="new-destination" onClick={() => setCreating(!creating)}>
          New destination
        </button>
      </div>
      {creating && (
        <NewDestinationForm
          credentials={credentials}
          onCreated={() => {
            setCreating(false);
            load.refresh();
          }}
          onClose={() => setCreating(false)}
        />
      )}
      {load.state === 'loading' && <p className="muted">Loading destinations…</p>}
      {load.state === 'error' && <Retry error={load.error} onRetry={load.refresh} />}
      {load.state === 'done' && load.value.length === 0 && !creating && (
        <div className="empty card" data-testid="destinations-empty">
          <h3>No destinations yet</h3>
          <p>A destination is an S3-compatible bucket (AWS S3, MinIO, …) and a key that may write to it. Press "New destination"; a test file is written there before it is saved.</p>
        </div>
      )}
      {load.state === 'done' && load.value.length > 0 && (
        <table className="table" data-testid="destinations-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Bucket</th>
              <th>Prefix</th>
              <th>Endpoint</th>
              <th>Region</th>
              <th>Credentials</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {load.value.map((d) => (
              <tr key={d.id} data-testid="destination-row">
                <td>{d.display_name}</td>
                <td>{d.config.bucket_name}</td>
                <td>{d.config.prefix || dash}</td>
                <td>{d.config.endpoint_url ?? 'AWS S3'}</td>
                <td>{d.config.region ?? dash}</td>
                <td className="muted">stored, write-only</td>
                <td>{when(d.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function NewDestinationForm({ credentials, onCreated, onClose }: { credentials: Credentials; onCreated: () => void; onClose: () => void }) {
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    setBusy(true);
    setError(null);
    try {
      await createDestination(credentials, {
        display_name: text('display_name'),
        config: { bucket_name: text('bucket_name'), prefix: text('prefix'), endpoint_url: text('endpoint_url') || null, region: text('region') || null },
        credentials: { access_key_id: text('access_key_id'), secret_access_key: String(data.get('secret_access_key') ?? '') },
      });
      form.reset();
      onCreated();
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'ERROR', String(err)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card form-card" onSubmit={submit} data-testid="destination-form" autoComplete="off">
      <h3>New destination</h3>
      <div className="form-grid">
        <Field label="Name">
          <input name="display_name" data-testid="destination-name" required placeholder="our lake" />
        </Field>
        <Field label="Bucket">
          <input name="bucket_name" data-testid="destination-bucket" required minLength={3} maxLength={63} />
        </Field>
        <Field label="Prefix (folder, optional)">
          <input name="prefix" data-testid="destination-prefix" placeholder="langsmith" />
        </Field>
        <Field label="Endpoint URL (empty for AWS S3)">
          <input name="endpoint_url" data-testid="destination-endpoint" placeholder="https://minio.example.com" />
        </Field>
        <Field label="Region (optional)">
          <input name="region" data-testid="destination-region" placeholder="us-east-1" />
        </Field>
        <Field label="Access key ID">
          <input name="access_key_id" data-testid="destination-access-key" type="password" autoComplete="off" required />
        </Field>
        <Field label="Secret access key">
          <input name="secret_access_key" data-testid="destination-secret" type="password" autoComplete="new-password" required />
        </Field>
      </div>
      <p className="muted">The key is sealed before it is stored and is never shown again, here or in the API.</p>
      {error && <ErrorBox error={error} />}
      <div className="form-actions">
        <button type="submit" className="primary" data-testid="destination-submit" disabled={busy}>
          {busy ? 'Checking the bucket…' : 'Create destination'}
        </button>
        <button type="button" className="ghost" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}
