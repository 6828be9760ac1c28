// The form of a new export: a project and a destination (the first of each until one is chosen),
// once for a time range or on a schedule, the Parquet options and an optional filter.
import { useState, type FormEvent } from 'react';
import { ApiError, type Credentials } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { createExport, type BulkExport, type Destination, type ProjectName } from './exportsApi.ts';
import { Field } from './Field.tsx';

/** A datetime-local input's value (local time, to the second) for a moment. */
function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 19);
}

export function NewExportForm({
  credentials,
  destinations,
  projects,
  onDone,
}: {
  credentials: Credentials;
  destinations: Destination[];
  projects: ProjectName[];
  onDone: (created: BulkExport | null) => void;
}) {
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
  const form = {
    ...chosen,
    projectId: chosen.projectId || (projects[0]?.id ?? ''),
    destinationId: chosen.destinationId || (destinations[0]?.id ?? ''),
  };
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [field]: e.target.value });

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
              <input
                type="radio"
                name="kind"
                data-testid="export-once"
                checked={form.kind === 'once'}
                onChange={() => setForm({ ...form, kind: 'once' })}
              />{' '}
              once, for a time range
            </label>
            <label>
              <input
                type="radio"
                name="kind"
                data-testid="export-scheduled"
                checked={form.kind === 'scheduled'}
                onChange={() => setForm({ ...form, kind: 'scheduled' })}
              />{' '}
              on a schedule
            </label>
          </span>
        </Field>
        <Field label="Start (inclusive)">
          <input
            type="datetime-local"
            step={1}
            data-testid="export-start"
            value={form.start}
            onChange={set('start')}
            required
          />
        </Field>
        {form.kind === 'once' ? (
          <Field label="End (exclusive)">
            <input
              type="datetime-local"
              step={1}
              data-testid="export-end"
              value={form.end}
              onChange={set('end')}
              required
            />
          </Field>
        ) : (
          <Field label="Every (hours, 1–168)">
            <input
              type="number"
              min={1}
              max={168}
              data-testid="export-interval"
              value={form.intervalHours}
              onChange={set('intervalHours')}
              required
            />
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
          <input
            className="mono"
            data-testid="export-filter"
            value={form.filter}
            onChange={set('filter')}
            placeholder='eq(run_type, "llm")'
          />
        </Field>
      </div>
      {form.kind === 'scheduled' && (
        <p className="muted">A window is exported once it has ended; windows since the start come first.</p>
      )}
      {error && <ErrorBox error={error} />}
      <div className="form-actions">
        <button
          type="submit"
          className="primary"
          data-testid="export-submit"
          disabled={busy || !form.projectId || !form.destinationId}
        >
          {busy ? 'Creating…' : 'Create export'}
        </button>
        <button type="button" className="ghost" onClick={() => onDone(null)}>
          Close
        </button>
      </div>
    </form>
  );
}
