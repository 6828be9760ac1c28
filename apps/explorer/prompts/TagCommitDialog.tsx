// Tagging a commit of a prompt (POST /repos/-/{name}/tags): a new tag, or one of the prompt's
// tags (offered), which moves here from the commit it names, said before it moves. `latest` is
// not a tag (the API says why, in the dialog).
import { useState, type FormEvent } from 'react';
import type { Credentials } from '../core/api.ts';
import { Buttons, Dialog, useSubmit } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { shortHash } from './CommitDialog.tsx';
import { type PromptCommit, type PromptTag, tagCommit } from './promptsApi.ts';

export function TagCommitDialog({
  credentials,
  promptName,
  commit,
  tags,
  onDone,
  onCancel,
}: {
  credentials: Credentials;
  promptName: string;
  commit: PromptCommit;
  tags: readonly PromptTag[];
  onDone: () => void;
  onCancel: () => void;
}) {
  const [tag, setTag] = useState('');
  const { busy, error, run } = useSubmit();
  const own = tags.filter((t) => t.commit_id === commit.id).map((t) => t.tag_name);
  const elsewhere = tags.find((t) => t.tag_name === tag.trim() && t.commit_id !== commit.id);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await run(async () => {
      await tagCommit(credentials, promptName, tag.trim(), commit.id);
      onDone();
    });
  };
  return (
    <Dialog title="Tag this commit" onCancel={onCancel}>
      <form onSubmit={submit}>
        <p>
          Commit <code>{shortHash(commit.commit_hash)}</code> of <strong>{promptName}</strong>
          {own.length > 0 && <>, tagged {own.join(', ')}</>}. A tag names one commit: clients pull it as{' '}
          <code>
            {promptName}:{tag.trim() || '<tag>'}
          </code>
          .
        </p>
        <label>
          Tag
          <input
            data-testid="tag-input"
            list="prompt-tags"
            value={tag}
            onChange={(e) => setTag(e.target.value)}
            placeholder="e.g. prod"
            autoFocus
            maxLength={128}
          />
          <datalist id="prompt-tags">
            {tags
              .filter((t) => t.commit_id !== commit.id)
              .map((t) => (
                <option key={t.tag_name} value={t.tag_name} />
              ))}
          </datalist>
        </label>
        {elsewhere && (
          <p className="tag-move" data-testid="tag-move">
            <strong>{elsewhere.tag_name}</strong> is on commit <code>{shortHash(elsewhere.commit_hash)}</code> now: it
            moves to <code>{shortHash(commit.commit_hash)}</code>.
          </p>
        )}
        {error && <ErrorBox error={error} />}
        <Buttons onCancel={onCancel}>
          <button type="submit" className="primary" data-testid="dialog-confirm" disabled={busy || !tag.trim()}>
            {busy ? 'Tagging…' : elsewhere ? 'Move tag' : 'Tag'}
          </button>
        </Buttons>
      </form>
    </Dialog>
  );
}
