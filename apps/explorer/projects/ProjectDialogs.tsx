// The projects page's dialogs: create a project, rename one, and delete one after a
// confirmation that names it and says what goes with it. A refusal of the API (a name taken:
// 409) stays in the dialog, in words, for the person to correct.
import { useState, type FormEvent } from 'react';
import type { Credentials, Project } from '../core/api.ts';
import { Buttons, ConfirmDeleteDialog, Dialog, useSubmit } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { counted } from '../core/format.ts';
import { createProject, deleteProject, renameProject } from './projectsApi.ts';

export type DialogState =
  | { kind: 'create' }
  | { kind: 'rename'; project: Project }
  | { kind: 'delete'; project: Project };

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
  const { busy, error, run } = useSubmit();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await run(async () => {
      if (dialog.kind === 'create') await createProject(credentials, name.trim(), description.trim() || null);
      else if (dialog.kind === 'rename') await renameProject(credentials, dialog.project.id, name.trim());
      onDone();
    });
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
      <ConfirmDeleteDialog
        title="Delete project"
        onDelete={() => deleteProject(credentials, p.id)}
        onDone={onDone}
        onCancel={onCancel}
      >
        Delete the project <strong>{p.name}</strong>
        {p.run_count ? ` and its ${counted(p.run_count, 'run')}` : ''}? This cannot be undone.
      </ConfirmDeleteDialog>
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
