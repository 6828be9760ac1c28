// A new commit of a prompt, by editing its templates (TemplateEditor): the edit starts from the
// commit shown and is pushed on top of the latest commit the page read (`parent_commit`). When
// the prompt got another commit meanwhile the API answers 409: the dialog says so, names the newer
// commit, keeps the edit, and offers to commit on top of the newer one after all. A prompt without
// commits gets its first here (a chat or a string prompt).
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { ApiError, Credentials } from '../core/api.ts';
import { asApiError, Buttons, Dialog } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { ago } from '../core/format.ts';
import {
  draftOf,
  editedManifest,
  emptyDraft,
  type MessageDraft,
  readManifest,
  type TemplateFormat,
} from './manifest.ts';
import { type PromptCommit, pushCommit, readCommit, type PulledCommit } from './promptsApi.ts';
import { KindPicker, TemplateEditor } from './TemplateEditor.tsx';

export const shortHash = (hash: string | null | undefined) => (hash ? hash.slice(0, 8) : '—');

/** What a new prompt starts with: a system message and the human's question. */
export const starterDrafts = (): MessageDraft[] => [
  { ...emptyDraft('system'), template: 'You are a helpful assistant.' },
  { ...emptyDraft('human'), template: '{question}' },
];

function draftsOf(manifest: Record<string, unknown>): {
  kind: 'chat' | 'string';
  drafts: MessageDraft[];
  format: TemplateFormat;
} {
  const view = readManifest(manifest);
  if (view.kind === 'string')
    return { kind: 'string', drafts: [{ ...emptyDraft('human'), template: view.template }], format: view.format };
  if (view.kind === 'chat')
    return {
      kind: 'chat',
      drafts: view.messages.map(draftOf),
      format: view.messages.find((m) => m.role !== 'placeholder' && !m.literal)?.format ?? 'f-string',
    };
  return { kind: 'chat', drafts: starterDrafts(), format: 'f-string' };
}

export function CommitDialog({
  credentials,
  promptName,
  base,
  latestHash,
  onDone,
  onCancel,
}: {
  credentials: Credentials;
  promptName: string;
  /** The commit the edit starts from (its manifest as pushed); null: the prompt's first commit. */
  base: PulledCommit | null;
  /** The latest commit as the page read it: the parent of the new commit. */
  latestHash: string | null;
  onDone: (commit: PromptCommit) => void;
  onCancel: () => void;
}) {
  const [start] = useState(() =>
    base ? draftsOf(base.manifest) : { kind: 'chat' as const, drafts: starterDrafts(), format: 'f-string' as const },
  );
  const [kind, setKind] = useState<'chat' | 'string'>(start.kind);
  const [drafts, setDrafts] = useState<MessageDraft[]>(start.drafts);
  const [format, setFormat] = useState<TemplateFormat>(start.format);
  const [description, setDescription] = useState('');
  const [parent, setParent] = useState(latestHash);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | ApiError | null>(null);
  /** The 409, and the newer latest commit once read (or why it could not be). */
  const [conflict, setConflict] = useState<{
    error: ApiError;
    latest: PulledCommit | null;
    readError: ApiError | null;
  } | null>(null);

  const conflictBox = useRef<HTMLDivElement>(null);
  // The dialog scrolls: the conflict is brought into sight when it is told.
  // (In braces: Chromium's scrollIntoView answers a promise, which React would take for a cleanup.)
  useEffect(() => {
    conflictBox.current?.scrollIntoView({ block: 'center' });
  }, [conflict]);

  const edit = (next: MessageDraft[]) => {
    setDrafts(next);
    setProblem(null);
  };
  const chooseKind = (k: 'chat' | 'string') => {
    setKind(k);
    edit(k === 'chat' ? starterDrafts() : [{ ...emptyDraft('human'), template: '' }]);
  };
  const push = async (onTop: string | null) => {
    const manifest = editedManifest(base?.manifest ?? null, drafts, { format, asString: kind === 'string' });
    // The latest again is no change; an older commit's text again is (it undoes what came after).
    if (base?.commit_hash === latestHash && JSON.stringify(drafts) === JSON.stringify(start.drafts))
      return setProblem('Nothing changed: edit a template first.');
    setBusy(true);
    setProblem(null);
    try {
      const commit = await pushCommit(credentials, promptName, manifest, onTop, description.trim() || null);
      onDone(commit);
    } catch (err) {
      const error = asApiError(err);
      setBusy(false);
      if (error.status !== 409) return setProblem(error);
      await readNewer(error);
    }
  };
  /** The commit that made the edit's parent stale, for the person to see before committing on top of it. */
  const readNewer = async (error: ApiError) => {
    setConflict({ error, latest: null, readError: null });
    try {
      setConflict({ error, latest: await readCommit(credentials, promptName, 'latest'), readError: null });
    } catch (err) {
      setConflict({ error, latest: null, readError: asApiError(err) });
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void push(parent);
  };

  const fromOlder = base && latestHash && base.commit_hash !== latestHash;
  return (
    <Dialog title={base ? `New commit of ${promptName}` : `First commit of ${promptName}`} onCancel={onCancel} wide>
      <form onSubmit={submit} className="commit-form">
        {base ? (
          <p className="muted" data-testid="commit-base">
            {fromOlder ? (
              <>
                Starting from the text of commit <code>{shortHash(base.commit_hash)}</code>; the new commit goes on top
                of the latest, <code>{shortHash(latestHash)}</code>.
              </>
            ) : (
              <>
                On top of the latest commit, <code>{shortHash(latestHash)}</code>.
              </>
            )}
          </p>
        ) : (
          <KindPicker kind={kind} format={format} onKind={chooseKind} onFormat={setFormat} />
        )}
        <TemplateEditor kind={kind} drafts={drafts} format={format} onChange={edit} />
        <label>
          <span>
            Description <span className="muted">(optional: what this commit changes)</span>
          </span>
          <input
            data-testid="commit-description-input"
            value={description}
            maxLength={1000}
            onChange={(e) => setDescription(e.target.value)}
          />
        </label>
        {problem &&
          (typeof problem === 'string' ? (
            <p className="error" data-testid="commit-problem">
              {problem}
            </p>
          ) : (
            <ErrorBox error={problem} />
          ))}
        {conflict && (
          <div className="commit-conflict" role="alert" data-testid="commit-conflict" ref={conflictBox}>
            <p>
              <strong>Not committed: this prompt has a newer commit.</strong>{' '}
              {conflict.latest ? (
                <>
                  <code data-testid="conflict-latest">{shortHash(conflict.latest.commit_hash)}</code> was committed{' '}
                  {ago(conflict.latest.created_at)}, after <code>{shortHash(parent)}</code>, the commit this edit was to
                  go on top of.
                </>
              ) : (
                <>Someone committed to it after {shortHash(parent)}, the commit this edit was to go on top of.</>
              )}{' '}
              Your edit is still here. Committing it on top of the newer commit replaces what that commit changed.
            </p>
            <p className="muted">
              The API said: {conflict.error.code} {conflict.error.message}
            </p>
            {conflict.readError && (
              <>
                <ErrorBox error={conflict.readError} />
                <button
                  type="button"
                  className="ghost"
                  data-testid="conflict-read-again"
                  onClick={() => void readNewer(conflict.error)}
                >
                  Read the newer commit again
                </button>
              </>
            )}
          </div>
        )}
        <Buttons onCancel={onCancel}>
          {conflict?.latest ? (
            <button
              type="button"
              className="primary"
              data-testid="commit-on-latest"
              disabled={busy}
              onClick={() => {
                const latest = conflict.latest!.commit_hash;
                setParent(latest);
                setConflict(null);
                void push(latest);
              }}
            >
              Commit on top of {shortHash(conflict.latest.commit_hash)} anyway
            </button>
          ) : (
            <button
              type="submit"
              className="primary"
              data-testid="dialog-confirm"
              disabled={busy || drafts.length === 0 || conflict !== null}
            >
              {busy ? 'Committing…' : 'Commit'}
            </button>
          )}
        </Buttons>
      </form>
    </Dialog>
  );
}
