// Tagging a version of a dataset (PUT /datasets/{id}/tags): a tag names one version, so a tag
// already on another version moves to this one; "latest" and times cannot be tags (the API says
// why, in the dialog).
import { useState, type FormEvent } from 'react';
import type { Credentials } from '../core/api.ts';
import { Buttons, Dialog, useSubmit } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { tagVersion, type DatasetVersion } from './examplesApi.ts';
import { versionTime } from './VersionSelect.tsx';

export function TagVersionDialog({
  credentials,
  datasetId,
  version,
  onDone,
  onCancel,
}: {
  credentials: Credentials;
  datasetId: string;
  version: DatasetVersion;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [tag, setTag] = useState('');
  const { busy, error, run } = useSubmit();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await run(async () => {
      await tagVersion(credentials, datasetId, version.as_of, tag.trim());
      onDone();
    });
  };
  return (
    <Dialog title="Tag this version" onCancel={onCancel}>
      <form onSubmit={submit}>
        <p>
          The version of <strong>{versionTime(version.as_of)}</strong>
          {version.tags.length > 0 && <>, tagged {version.tags.join(', ')}</>}. A tag names one version: a tag already
          on another version moves here.
        </p>
        <label>
          Tag
          <input
            data-testid="tag-input"
            value={tag}
            onChange={(e) => setTag(e.target.value)}
            placeholder="e.g. prod"
            autoFocus
            maxLength={1024}
          />
        </label>
        {error && <ErrorBox error={error} />}
        <Buttons onCancel={onCancel}>
          <button type="submit" className="primary" data-testid="dialog-confirm" disabled={busy || !tag.trim()}>
            {busy ? 'Tagging…' : 'Tag'}
          </button>
        </Buttons>
      </form>
    </Dialog>
  );
}
