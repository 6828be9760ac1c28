// The prompts list's dialogs: create a prompt (a name, a description, and its first commit: a chat
// prompt's messages or a string template), and delete one after a confirmation naming it and its
// commits. A refusal of the API (a name taken: 409; a name the API does not take: 400) stays in
// the dialog; a prompt made whose first commit was refused says so, and opens without it.
import { useState, type FormEvent } from 'react';
import type { ApiError, Credentials } from '../core/api.ts';
import { asApiError, Buttons, ConfirmDeleteDialog, Dialog } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { counted } from '../core/format.ts';
import { starterDrafts } from './CommitDialog.tsx';
import { editedManifest, emptyDraft, type MessageDraft, type TemplateFormat } from './manifest.ts';
import { createPrompt, deletePrompt, type Prompt, pushCommit } from './promptsApi.ts';
import { KindPicker, TemplateEditor } from './TemplateEditor.tsx';

/** The names the API takes: a letter or digit, then letters, digits, `_`, `.` and `-`. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export function NewPromptDialog({
  credentials,
  onDone,
  onCancel,
}: {
  credentials: Credentials;
  /** The prompt made (opened by the page). */
  onDone: (name: string) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [kind, setKind] = useState<'chat' | 'string'>('chat');
  const [format, setFormat] = useState<TemplateFormat>('f-string');
  const [drafts, setDrafts] = useState<MessageDraft[]>(starterDrafts);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | ApiError | null>(null);
  /** Made, but its first commit refused. */
  const [made, setMade] = useState<{ name: string; error: ApiError } | null>(null);

  const edit = (next: MessageDraft[]) => {
    setDrafts(next);
    setProblem(null);
  };
  const chooseKind = (k: 'chat' | 'string') => {
    setKind(k);
    edit(k === 'chat' ? starterDrafts() : [{ ...emptyDraft('human'), template: '' }]);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const handle = name.trim();
    if (!NAME.test(handle))
      return setProblem('A name starts with a letter or a digit, then letters, digits, “_”, “.” or “-” (no spaces).');
    setBusy(true);
    setProblem(null);
    let prompt: Prompt;
    try {
      prompt = await createPrompt(credentials, handle, description.trim() || null);
    } catch (err) {
      setBusy(false);
      return setProblem(asApiError(err));
    }
    try {
      const manifest = editedManifest(null, drafts, { format, asString: kind === 'string' });
      await pushCommit(credentials, prompt.repo_handle, manifest, null, 'first version');
      onDone(prompt.repo_handle);
    } catch (err) {
      setBusy(false);
      setMade({ name: prompt.repo_handle, error: asApiError(err) });
    }
  };

  if (made)
    return (
      <Dialog title="Prompt created without a commit" onCancel={() => onDone(made.name)}>
        <div className="dialog-body">
          <p data-testid="first-commit-refused">
            The prompt <strong>{made.name}</strong> was created, but its first commit was refused:
          </p>
          <ErrorBox error={made.error} />
          <p>Open it to commit its first version again.</p>
          <div className="dialog-buttons">
            <button type="button" className="primary" data-testid="dialog-confirm" onClick={() => onDone(made.name)}>
              Open {made.name}
            </button>
          </div>
        </div>
      </Dialog>
    );
  return (
    <Dialog title="New prompt" onCancel={onCancel} wide>
      <form onSubmit={submit} className="commit-form">
        <label>
          Name
          <input
            data-testid="prompt-name-input"
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              setProblem(null);
            }}
            placeholder="e.g. support-answer"
            autoFocus
            maxLength={128}
          />
        </label>
        <label>
          <span>
            Description <span className="muted">(optional)</span>
          </span>
          <input
            data-testid="prompt-description-input"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        </label>
        <KindPicker kind={kind} format={format} onKind={chooseKind} onFormat={setFormat} />
        <TemplateEditor kind={kind} drafts={drafts} format={format} onChange={edit} />
        {problem &&
          (typeof problem === 'string' ? (
            <p className="error" data-testid="prompt-problem">
              {problem}
            </p>
          ) : (
            <ErrorBox error={problem} />
          ))}
        <Buttons onCancel={onCancel}>
          <button
            type="submit"
            className="primary"
            data-testid="dialog-confirm"
            disabled={busy || !name.trim() || drafts.length === 0}
          >
            {busy ? 'Creating…' : 'Create'}
          </button>
        </Buttons>
      </form>
    </Dialog>
  );
}

export function DeletePromptDialog({
  credentials,
  prompt: p,
  onDone,
  onCancel,
}: {
  credentials: Credentials;
  prompt: Prompt;
  onDone: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDeleteDialog
      title="Delete prompt"
      onDelete={() => deletePrompt(credentials, p.repo_handle)}
      onDone={onDone}
      onCancel={onCancel}
    >
      Delete the prompt <strong>{p.repo_handle}</strong>
      {p.num_commits ? ` with its ${counted(p.num_commits, 'commit')} and their tags` : ''}? Clients pulling it get a
      404 from then on. This cannot be undone.
    </ConfirmDeleteDialog>
  );
}
