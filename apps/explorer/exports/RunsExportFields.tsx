// The new-export form's fields for a project's runs: the project, once for a time range or on a
// schedule, and an optional filter.
import type { ProjectName } from './exportsApi.ts';
import { Field } from './Field.tsx';

export interface RunsFields {
  projectId: string;
  kind: 'once' | 'scheduled';
  /** datetime-local values (local time, to the second). */
  start: string;
  end: string;
  intervalHours: string;
  filter: string;
}

/** A datetime-local input's value (local time, to the second) for a moment. */
export function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 19);
}

/** The last day up to now: from the top of the hour a day ago. */
export function defaultRunsFields(now: number): RunsFields {
  return {
    projectId: '',
    kind: 'once',
    start: localInput(Math.floor((now - 86_400_000) / 3_600_000) * 3_600_000),
    end: localInput(Math.floor(now / 1000) * 1000),
    intervalHours: '24',
    filter: '',
  };
}

export function RunsExportFields({
  fields,
  projects,
  onChange,
}: {
  fields: RunsFields;
  projects: ProjectName[];
  onChange: (fields: RunsFields) => void;
}) {
  const set = (field: keyof RunsFields) => (e: { target: { value: string } }) =>
    onChange({ ...fields, [field]: e.target.value });
  return (
    <>
      <Field label="Project">
        <select data-testid="export-project" value={fields.projectId} onChange={set('projectId')} required>
          {projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
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
              checked={fields.kind === 'once'}
              onChange={() => onChange({ ...fields, kind: 'once' })}
            />{' '}
            once, for a time range
          </label>
          <label>
            <input
              type="radio"
              name="kind"
              data-testid="export-scheduled"
              checked={fields.kind === 'scheduled'}
              onChange={() => onChange({ ...fields, kind: 'scheduled' })}
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
          value={fields.start}
          onChange={set('start')}
          required
        />
      </Field>
      {fields.kind === 'once' ? (
        <Field label="End (exclusive)">
          <input
            type="datetime-local"
            step={1}
            data-testid="export-end"
            value={fields.end}
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
            value={fields.intervalHours}
            onChange={set('intervalHours')}
            required
          />
        </Field>
      )}
      <Field label="Filter (optional)" wide>
        <input
          className="mono"
          data-testid="export-filter"
          value={fields.filter}
          onChange={set('filter')}
          placeholder='eq(run_type, "llm")'
        />
      </Field>
    </>
  );
}
