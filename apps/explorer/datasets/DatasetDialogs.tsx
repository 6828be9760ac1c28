// The datasets page's dialogs: create a dataset (name, description, type), edit one (name and
// description), and delete one after a confirmation that names it. A refusal of the API (a name
// taken: 409) stays in the dialog, in words, for the person to correct.
import { useState, type FormEvent } from 'react';
import type { Credentials } from '../core/api.ts';
import { Buttons, ConfirmDeleteDialog, Dialog, useSubmit } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { counted } from '../core/format.ts';
import { createDataset, type Dataset, type DataType, deleteDataset, editDataset } from './datasetsApi.ts';

export type DatasetDialogState =
  | { kind: 'create' }
  | { kind: 'edit'; dataset: Dataset }
  | { kind: 'delete'; dataset: Dataset };

const TYPES: Array<{ value: DataType; label: string }> = [
  { value: 'kv', label: 'Key-value: any JSON inputs and outputs' },
  { value: 'llm', label: 'LLM: a prompt in, a completion out' },
  { value: 'chat', label: 'Chat: messages in, a message out' },
];

export function DatasetDialog({
  credentials,
  dialog,
  onDone,
  onCancel,
}: {
  credentials: Credentials;
  dialog: DatasetDialogState;
  onDone: () => void;
  onCancel: () => void;
}) {
  const current = dialog.kind === 'create' ? null : dialog.dataset;
  const [name, setName] = useState(current?.name ?? '');
  const [description, setDescription] = useState(current?.description ?? '');
  const [dataType, setDataType] = useState<DataType>('kv');
  const { busy, error, run } = useSubmit();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await run(async () => {
      if (dialog.kind === 'create')
        await createDataset(credentials, {
          name: name.trim(),
          description: description.trim() || null,
          data_type: dataType,
        });
      else if (dialog.kind === 'edit')
        await editDataset(credentials, dialog.dataset.id, { name: name.trim(), description: description.trim() });
      onDone();
    });
  };

  if (dialog.kind === 'delete') {
    const d = dialog.dataset;
    return (
      <ConfirmDeleteDialog
        title="Delete dataset"
        onDelete={() => deleteDataset(credentials, d.id)}
        onDone={onDone}
        onCancel={onCancel}
      >
        Delete the dataset <strong>{d.name}</strong>
        {d.example_count ? ` and its ${counted(d.example_count, 'example')}` : ''}? Its experiments stay. This cannot be
        undone.
      </ConfirmDeleteDialog>
    );
  }
  const unchanged =
    dialog.kind === 'edit' &&
    name.trim() === dialog.dataset.name &&
    description.trim() === (dialog.dataset.description ?? '');
  return (
    <Dialog title={dialog.kind === 'create' ? 'New dataset' : `Edit ${dialog.dataset.name}`} onCancel={onCancel}>
      <form onSubmit={submit}>
        <label>
          Name
          <input
            data-testid="dataset-name-input"
            value={name}
            onChange={(e) => setName(e.target.value)}
            autoFocus
            maxLength={1000}
          />
        </label>
        <label>
          <span>
            Description <span className="muted">(optional)</span>
          </span>
          <textarea
            data-testid="dataset-description-input"
            rows={3}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        </label>
        {dialog.kind === 'create' && (
          <label>
            Type
            <select
              data-testid="dataset-type-input"
              value={dataType}
              onChange={(e) => setDataType(e.target.value as DataType)}
            >
              {TYPES.map((t) => (
                <option key={t.value} value={t.value}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
        )}
        {error && <ErrorBox error={error} />}
        <Buttons onCancel={onCancel}>
          <button
            type="submit"
            className="primary"
            data-testid="dialog-confirm"
            disabled={busy || !name.trim() || unchanged}
          >
            {dialog.kind === 'create' ? (busy ? 'Creating…' : 'Create') : busy ? 'Saving…' : 'Save'}
          </button>
        </Buttons>
      </form>
    </Dialog>
  );
}
