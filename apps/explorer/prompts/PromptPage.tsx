// One prompt: its head (PromptHeader), then the commit the URL names (a hash, its prefix or a tag;
// none: the latest) read for people (ManifestView) beside the prompt's commits (CommitsPanel).
// From here: a new commit by editing the commit shown (on top of the latest: CommitDialog, which
// says so when the prompt moved on meanwhile), a tag put on or moved to a commit, a commit
// compared with the latest. A prompt without commits offers its first.
import { useState } from 'react';
import type { Credentials } from '../core/api.ts';
import { ago, when } from '../core/format.ts';
import { EmptyCard, LoadState } from '../core/ListState.tsx';
import { linkProps, navigate, type Route } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import { usePagedLoad } from '../core/usePagedLoad.ts';
import { CommitDialog, shortHash } from './CommitDialog.tsx';
import { CommitsPanel } from './CommitsPanel.tsx';
import { ManifestView } from './ManifestView.tsx';
import { PromptHeader } from './PromptHeader.tsx';
import {
  getPrompt,
  listCommits,
  listTags,
  type Prompt,
  type PromptCommit,
  PROMPTS_PAGE,
  type PromptTag,
  type PulledCommit,
  readCommit,
} from './promptsApi.ts';
import { TagCommitDialog } from './TagCommitDialog.tsx';
import './prompts.css';

type PromptRoute = Extract<Route, { page: 'prompt' }>;

export function PromptPage({ credentials, route }: { credentials: Credentials; route: PromptRoute }) {
  const { name } = route;
  const [version, setVersion] = useState(0);
  const [editing, setEditing] = useState<{ base: PulledCommit | null } | null>(null);
  const [tagging, setTagging] = useState<PromptCommit | null>(null);
  const who = [credentials.apiKey, credentials.workspaceId, name, version];
  const prompt = useLoad(() => getPrompt(credentials, name), who);
  // A new commit or tag reads the commits shown again; another prompt starts at its first page.
  const commits = usePagedLoad(
    async (offset) => {
      const page = await listCommits(credentials, name, offset);
      return { items: page.commits, total: page.total };
    },
    PROMPTS_PAGE,
    who,
    [name],
  );
  const tags = useLoad(() => listTags(credentials, name), who);
  const tagList = tags.state === 'done' ? tags.value : [];
  const commitList = commits.state === 'done' ? commits.value.items : [];
  // The latest as the commits list read it (the parent of a new commit), else as the prompt did.
  const latest = commitList[0]?.commit_hash ?? (prompt.state === 'done' ? prompt.value.last_commit_hash : null);
  // The commit shown, as the API resolves a ref: a tag first, then a hash or its prefix.
  const ref = route.commit;
  const shownHash = !ref
    ? latest
    : (tagList.find((t) => t.tag_name === ref)?.commit_hash ??
      commitList.find((c) => c.commit_hash.startsWith(ref.toLowerCase()))?.commit_hash ??
      null);
  const changed = () => setVersion((v) => v + 1);

  return (
    <section>
      <PromptHeader prompt={prompt} name={name} tab="prompt" />
      <LoadState load={prompt} what="the prompt" onRetry={prompt.refresh}>
        {(p) =>
          p.num_commits === 0 ? (
            <EmptyCard testId="prompt-no-commits" title="No commits yet">
              <p>A prompt’s templates are its commits: this one has none. Write its first version here, or push one.</p>
              <div className="empty-actions">
                <button
                  type="button"
                  className="primary"
                  data-testid="first-commit"
                  onClick={() => setEditing({ base: null })}
                >
                  Write the first commit
                </button>
              </div>
            </EmptyCard>
          ) : (
            <div className="prompt-layout">
              <ShownCommit
                key={`${route.commit ?? 'latest'}|${version}`}
                credentials={credentials}
                prompt={p}
                commitRef={route.commit}
                latestHash={latest}
                tags={tagList}
                onEdit={(base) => setEditing({ base })}
                onTag={setTagging}
              />
              <CommitsPanel name={name} commits={commits} tags={tagList} shownHash={shownHash} onTag={setTagging} />
            </div>
          )
        }
      </LoadState>
      {editing && (
        <CommitDialog
          credentials={credentials}
          promptName={name}
          base={editing.base}
          latestHash={latest}
          onCancel={() => setEditing(null)}
          onDone={() => {
            setEditing(null);
            navigate({ page: 'prompt', name, commit: null });
            changed();
          }}
        />
      )}
      {tagging && (
        <TagCommitDialog
          credentials={credentials}
          promptName={name}
          commit={tagging}
          tags={tagList}
          onCancel={() => setTagging(null)}
          onDone={() => {
            setTagging(null);
            changed();
          }}
        />
      )}
    </section>
  );
}

/** The commit the URL names, for people, with what can be done from it. */
function ShownCommit({
  credentials,
  prompt: p,
  commitRef,
  latestHash,
  tags,
  onEdit,
  onTag,
}: {
  credentials: Credentials;
  prompt: Prompt;
  commitRef: string | null;
  latestHash: string | null;
  tags: readonly PromptTag[];
  onEdit: (base: PulledCommit) => void;
  onTag: (commit: PromptCommit) => void;
}) {
  const commit = useLoad(
    () => readCommit(credentials, p.repo_handle, commitRef ?? 'latest'),
    [credentials.apiKey, credentials.workspaceId, p.repo_handle, commitRef],
  );
  return (
    <div className="shown-commit card" data-testid="shown-commit">
      <LoadState load={commit} what="the commit" onRetry={commit.refresh}>
        {(c) => {
          const isLatest = c.commit_hash === latestHash;
          const own = tags.filter((t) => t.commit_id === c.id).map((t) => t.tag_name);
          return (
            <>
              <div className="shown-commit-head" data-testid="shown-commit-head" data-commit-hash={c.commit_hash}>
                <div className="shown-commit-title">
                  <h3>
                    {isLatest ? 'Latest commit' : 'Commit'}{' '}
                    <code title={c.commit_hash}>{shortHash(c.commit_hash)}</code>
                  </h3>
                  {own.map((t) => (
                    <span key={t} className="tag commit-tag" data-testid="shown-commit-tag">
                      {t}
                    </span>
                  ))}
                  <span className="muted" title={when(c.created_at)}>
                    {ago(c.created_at)}
                  </span>
                </div>
                <div className="shown-commit-actions">
                  {!isLatest && latestHash && (
                    <a
                      className="ghost button-link"
                      data-testid="compare-latest"
                      {...linkProps({ page: 'promptDiff', name: p.repo_handle, from: c.commit_hash, to: latestHash })}
                    >
                      Compare with latest
                    </a>
                  )}
                  <button
                    type="button"
                    className="ghost"
                    data-testid="shown-commit-tag-button"
                    onClick={() => onTag(c)}
                  >
                    Tag
                  </button>
                  <button type="button" className="primary" data-testid="edit-commit" onClick={() => onEdit(c)}>
                    {isLatest ? 'Edit and commit' : 'Edit from here and commit'}
                  </button>
                </div>
              </div>
              {!isLatest && (
                <p className="older-note" data-testid="older-note">
                  An older commit.{' '}
                  <a {...linkProps({ page: 'prompt', name: p.repo_handle, commit: null })}>Show the latest</a>
                </p>
              )}
              {c.description && <p className="muted shown-commit-description">{c.description}</p>}
              <ManifestView manifest={c.manifest} />
            </>
          );
        }}
      </LoadState>
    </div>
  );
}
