// A prompt's commits, newest first: each one's short hash (opening it), when it was made, its
// parent, the tags on it and its description, the one shown marked; "Tag" puts or moves a tag on
// it, "Diff" compares it with its parent. A hundred at a time.
import { ago, count, when } from '../core/format.ts';
import { LoadState, ShowMore } from '../core/ListState.tsx';
import { linkProps } from '../core/route.ts';
import type { Pages } from '../core/usePagedLoad.ts';
import type { Load } from '../core/useLoad.ts';
import { shortHash } from './CommitDialog.tsx';
import type { PromptCommit, PromptTag } from './promptsApi.ts';

export function CommitsPanel({
  name,
  commits,
  tags,
  shownHash,
  onTag,
}: {
  name: string;
  commits: Load<Pages<PromptCommit>> & { refresh: () => void; showMore: () => void };
  tags: readonly PromptTag[];
  /** The commit the page shows. */
  shownHash: string | null;
  onTag: (commit: PromptCommit) => void;
}) {
  const tagsOf = (c: PromptCommit) => tags.filter((t) => t.commit_id === c.id).map((t) => t.tag_name);
  return (
    <aside className="commits-panel card" data-testid="commits-panel">
      <h3>
        Commits
        {commits.state === 'done' && (
          <span className="diff-count">{count(commits.value.total ?? commits.value.items.length)}</span>
        )}
      </h3>
      <LoadState load={commits} what="commits" onRetry={commits.refresh}>
        {({ items: list, more }) => (
          <>
            <ol className="commit-list">
              {list.map((c, i) => {
                const shown = c.commit_hash === shownHash;
                return (
                  <li
                    key={c.id}
                    className={shown ? 'commit-item shown' : 'commit-item'}
                    data-testid="commit-row"
                    data-commit-hash={c.commit_hash}
                    aria-current={shown ? 'true' : undefined}
                  >
                    <div className="commit-line">
                      <a
                        className="hash"
                        data-testid="commit-hash"
                        title={c.commit_hash}
                        {...linkProps({ page: 'prompt', name, commit: i === 0 ? null : c.commit_hash })}
                      >
                        {shortHash(c.commit_hash)}
                      </a>
                      {i === 0 && <span className="tag latest-tag">latest</span>}
                      {tagsOf(c).map((t) => (
                        <span key={t} className="tag commit-tag" data-testid="commit-tag">
                          {t}
                        </span>
                      ))}
                      <span className="muted commit-time" title={when(c.created_at)} data-testid="commit-time">
                        {ago(c.created_at)}
                      </span>
                    </div>
                    {c.description && (
                      <div className="commit-description" data-testid="commit-description">
                        {c.description}
                      </div>
                    )}
                    <div className="commit-line muted">
                      <span data-testid="commit-parent">
                        {c.parent_commit_hash ? (
                          <>
                            parent <code>{shortHash(c.parent_commit_hash)}</code>
                          </>
                        ) : (
                          'first commit'
                        )}
                      </span>
                      <span className="commit-actions">
                        <button
                          type="button"
                          className="link-button"
                          data-testid="commit-tag-button"
                          onClick={() => onTag(c)}
                        >
                          Tag
                        </button>
                        {c.parent_commit_hash && (
                          <a
                            className="link-button"
                            data-testid="commit-diff"
                            {...linkProps({ page: 'promptDiff', name, from: c.parent_commit_hash, to: c.commit_hash })}
                          >
                            Diff
                          </a>
                        )}
                      </span>
                    </div>
                  </li>
                );
              })}
            </ol>
            {more && <ShowMore testId="commits-more" what="commits" onMore={commits.showMore} small />}
          </>
        )}
      </LoadState>
    </aside>
  );
}
