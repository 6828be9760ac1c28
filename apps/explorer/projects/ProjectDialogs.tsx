// The projects page's dialogs: create a project, rename one, and delete one after a
// confirmation that names it and says what goes with it. A refusal of the API (a name taken:
// 409) stays in the dialog, in words, for the person to correct.
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError, type Credentials, type Project } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { count } from '../core/format.ts';
import { createProject, deleteProject, renameProject } from './projectsApi.ts';

export type DialogState =
  | { kind: 'create' }
  | { kind: 'rename'; project: Project }
  | { kind: 'delete'; project: Project };

const asApiError = (err: unknown): ApiError => (err instanceof ApiError ? err : new ApiError(0, 'ERROR', String(err)));

export function ProjectDialog({
  credentials,
  dialog,
  onDone,
  onCancel,
}: {
  credentials: Credentials;
  dialog: DialogState;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(dialog.kind === 'rename' ? dialog.project.name : '');
  const [description, setDescription] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (dialog.kind === 'create') await createProject(credentials, name.trim(), description.trim() || null);
      else if (dialog.kind === 'rename') await renameProject(credentials, dialog.project.id, name.trim());
      else await deleteProject(credentials, dialog.project.id);
      onDone();
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  };

  const nameField = (
    <label>
      Name
      <input
        data-testid="project-name-input"
        value={name}
        onChange={(e) => setName(e.target.value)}
        autoFocus
        maxLength={1000}
      />
    </label>
  );

  if (dialog.kind === 'delete') {
    const p = dialog.project;
    return (
      <Dialog title="Delete project" onCancel={onCancel}>
        <form onSubmit={submit}>
          <p data-testid="delete-question">
            Delete the project <strong>{p.name}</strong>
            {p.run_count ? ` and its ${count(p.run_count)} runs` : ''}? This cannot be undone.
          </p>
          {error && <ErrorBox error={error} />}
          <Buttons onCancel={onCancel}>
            <button type="submit" className="danger" data-testid="dialog-confirm" disabled={busy}>
              {busy ? 'Deleting…' : 'Delete project'}
            </button>
          </Buttons>
        </form>
      </Dialog>
    );
  }
  return (
    <Dialog title={dialog.kind === 'create' ? 'New project' : `Rename ${dialog.project.name}`} onCancel={onCancel}>
      <form onSubmit={submit}>
        {nameField}
        {dialog.kind === 'create' && (
          <label>
            <span>
              Description <span className="muted">(optional)</span>
            </span>
            <textarea
              data-testid="project-description-input"
              rows={3}
              value={description}
              onChange={(e) => setDescription(e.target.value)}
            />
          </label>
        )}
        {error && <ErrorBox error={error} />}
        <Buttons onCancel={onCancel}>
          <button
            type="submit"
            className="primary"
            data-testid="dialog-confirm"
            disabled={busy || !name.trim() || (dialog.kind === 'rename' && name.trim() === dialog.project.name)}
          >
            {dialog.kind === 'create' ? (busy ? 'Creating…' : 'Create') : busy ? 'Renaming…' : 'Rename'}
          </button>
        </Buttons>
      </form>
    </Dialog>
  );
}

function Buttons({ onCancel, children }: { onCancel: () => void; children: ReactNode }) {
  return (
    <div className="dialog-buttons">
      <button type="button" className="ghost" data-testid="dialog-cancel" onClick={onCancel}>
        Cancel
      </button>
      {children}
    </div>
  );
}

/** A modal over the page: Escape or a click outside cancels. */
function Dialog({ title, onCancel, children }: { title: string; onCancel: () => void; children: ReactNode }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onCancel();
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [onCancel]);
  return (
    <div className="dialog-backdrop" onMouseDown={onCancel}>
      <div
        className="dialog card"
        role="dialog"
        aria-modal="true"
        aria-label={title}
        data-testid="dialog"
        onMouseDown={(e) => e.stopPropagation()}
      >
        <h3>{title}</h3>
        {children}
      </div>
    </div>
  );
}
