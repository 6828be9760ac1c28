// The form of a new export: what to export — a project's runs (once for a time range or on a
// schedule, with an optional filter) or a dataset's version —, the destination (the first until
// one is chosen) and the Parquet options. The API's refusal is shown in the form, in its words.
import { useState, type FormEvent } from 'react';
import type { Credentials } from '../core/api.ts';
import { useSubmit } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { useDatasetChoice } from '../datasets/DatasetPicker.tsx';
import { DatasetExportFields } from './DatasetExportFields.tsx';
import {
  createExport,
  type BulkExport,
  type Destination,
  type ExportResource,
  type NewExport,
  type ProjectName,
} from './exportsApi.ts';
import { Field } from './Field.tsx';
import { defaultRunsFields, RunsExportFields, type RunsFields } from './RunsExportFields.tsx';

/** A dataset's version to open the form on (the dataset page's "Export as Parquet"). */
export interface DatasetPreset {
  datasetId: string;
  /** A time or tag; null for the latest. */
  asOf: string | null;
}

export function NewExportForm({
  credentials,
  destinations,
  projects,
  preset = null,
  onDone,
}: {
  credentials: Credentials;
  destinations: Destination[];
  projects: ProjectName[];
  preset?: DatasetPreset | null;
  onDone: (created: BulkExport | null) => void;
}) {
  const [resource, setResource] = useState<ExportResource>(preset ? 'examples' : 'runs');
  const [options, setOptions] = useState({
    destinationId: '',
    formatVersion: 'v1' as 'v1' | 'v2_beta',
    compression: 'gzip',
  });
  const [chosenRuns, setRuns] = useState<RunsFields>(() => defaultRunsFields(Date.now()));
  const dataset = useDatasetChoice(credentials, preset?.datasetId ?? null);
  // The version chosen, for the dataset it was chosen for: another dataset starts at Latest.
  const [version, setVersion] = useState({ datasetId: preset?.datasetId ?? null, asOf: preset?.asOf ?? null });
  const target = dataset.target;
  const asOf = target && version.datasetId === target.id ? version.asOf : null;
  // The first project and destination until one is chosen (the lists may arrive after the form opens).
  const runs = { ...chosenRuns, projectId: chosenRuns.projectId || (projects[0]?.id ?? '') };
  const destinationId = options.destinationId || (destinations[0]?.id ?? '');
  const { busy, error, run } = useSubmit();
  const set = (field: keyof typeof options) => (e: { target: { value: string } }) =>
    setOptions({ ...options, [field]: e.target.value });

  const body = (): NewExport => {
    const common = {
      bulk_export_destination_id: destinationId,
      format: 'Parquet' as const,
      format_version: options.formatVersion,
      compression: options.compression,
    };
    if (resource === 'examples')
      return { ...common, resource: 'examples', dataset_id: target!.id, ...(asOf ? { as_of: asOf } : {}) };
    const iso = (local: string) => new Date(local).toISOString();
    return {
      ...common,
      session_id: runs.projectId,
      start_time: iso(runs.start),
      ...(runs.kind === 'once' ? { end_time: iso(runs.end) } : { interval_hours: Number(runs.intervalHours) }),
      ...(runs.filter.trim() ? { filter: runs.filter.trim() } : {}),
    };
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await run(async () => {
      onDone(await createExport(credentials, body()));
    });
  };
  const ready = destinationId !== '' && (resource === 'examples' ? target !== null : runs.projectId !== '');

  return (
    <form className="card form-card" onSubmit={submit} data-testid="export-form">
      <h3>New export</h3>
      {destinations.length === 0 && (
        <p className="muted" data-testid="export-no-destination">
          No destination yet: create one below (a bucket and a key that may write to it), then export.
        </p>
      )}
      {resource === 'runs' && projects.length === 0 && (
        <p className="muted">No project to export yet: send traces first (see Projects).</p>
      )}
      <div className="form-grid">
        <Field label="Export">
          <span className="choice">
            <label>
              <input
                type="radio"
                name="resource"
                data-testid="export-resource-runs"
                checked={resource === 'runs'}
                onChange={() => setResource('runs')}
              />{' '}
              a project's runs
            </label>
            <label>
              <input
                type="radio"
                name="resource"
                data-testid="export-resource-examples"
                checked={resource === 'examples'}
                onChange={() => setResource('examples')}
              />{' '}
              a dataset's version
            </label>
          </span>
        </Field>
        <Field label="Destination">
          <select data-testid="export-destination" value={destinationId} onChange={set('destinationId')} required>
            {destinations.map((d) => (
              <option key={d.id} value={d.id}>
                {d.display_name}
              </option>
            ))}
          </select>
        </Field>
        {resource === 'runs' ? (
          <RunsExportFields fields={runs} projects={projects} onChange={setRuns} />
        ) : (
          <DatasetExportFields
            credentials={credentials}
            choice={dataset}
            asOf={asOf}
            onAsOf={(value) => setVersion({ datasetId: target?.id ?? null, asOf: value })}
          />
        )}
        <Field label="Format">
          <select value="Parquet" disabled>
            <option>Parquet</option>
          </select>
        </Field>
        <Field label="Timestamps">
          <select data-testid="export-format-version" value={options.formatVersion} onChange={set('formatVersion')}>
            <option value="v1">v1: naive, in UTC</option>
            <option value="v2_beta">v2_beta: UTC timezone-aware</option>
          </select>
        </Field>
        <Field label="Compression">
          <select data-testid="export-compression" value={options.compression} onChange={set('compression')}>
            {['gzip', 'zstandard', 'snappy', 'none'].map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </Field>
      </div>
      {resource === 'runs' && runs.kind === 'scheduled' && (
        <p className="muted">A window is exported once it has ended; windows since the start come first.</p>
      )}
      {error && <ErrorBox error={error} />}
      <div className="form-actions">
        <button type="submit" className="primary" data-testid="export-submit" disabled={busy || !ready}>
          {busy ? 'Creating…' : 'Create export'}
        </button>
        <button type="button" className="ghost" data-testid="export-close" onClick={() => onDone(null)}>
          Close
        </button>
      </div>
    </form>
  );
}
