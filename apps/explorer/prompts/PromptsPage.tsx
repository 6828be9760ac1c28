// Prompts (the hub): every prompt of the workspace with its description, tags, commits, its last
// commit (hash and when: read per row after the list, a commit's time being kept by the commit)
// and likes (the caller's own toggled here), searched in the URL (by the API: `query`, in the name
// or the description); created with a first commit, deleted after a confirmation naming it; each
// opens its own page. A hundred at a time, "Show more" reading the next hundred.
import { useEffect, useState } from 'react';
import type { Credentials } from '../core/api.ts';
import { asApiError } from '../core/Dialog.tsx';
import { ago, count } from '../core/format.ts';
import { EmptyCard, ListState, ListTable, type Column, ShowMore } from '../core/ListState.tsx';
import { linkProps, navigate } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import { usePagedLoad, useSettledSearch } from '../core/usePagedLoad.ts';
import { shortHash } from './CommitDialog.tsx';
import { DeletePromptDialog, NewPromptDialog } from './PromptDialogs.tsx';
import { likePrompt, listPrompts, type Prompt, PROMPTS_PAGE, readCommit } from './promptsApi.ts';
import './prompts.css';

const COLUMNS: Column[] = [
  'Name',
  'Tags',
  { label: 'Commits', num: true },
  'Last commit',
  { label: 'Likes', num: true, title: 'Likes (yours toggles)' },
  { label: '', ariaLabel: 'Actions' },
];

const promptRoute = (name: string) => ({ page: 'prompt' as const, name, commit: null });

export function PromptsPage({ credentials, search }: { credentials: Credentials; search: string }) {
  const [version, setVersion] = useState(0);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Prompt | null>(null);
  const query = useSettledSearch(search);
  const load = usePagedLoad(
    async (offset) => {
      const { repos, total } = await listPrompts(credentials, offset, query);
      return { items: repos, total };
    },
    PROMPTS_PAGE,
    [credentials.apiKey, credentials.workspaceId, query, version],
  );

  return (
    <section>
      <div className="page-head">
        <h2>Prompts</h2>
        <div className="page-actions">
          <input
            className="search"
            data-testid="prompt-search"
            type="search"
            placeholder="Search prompts by name or description"
            value={search}
            onChange={(e) => navigate({ page: 'prompts', search: e.target.value }, { replace: true })}
          />
          <button type="button" className="primary" data-testid="prompt-new" onClick={() => setCreating(true)}>
            New prompt
          </button>
        </div>
      </div>
      <ListState
        load={load}
        what="prompts"
        onRetry={load.refresh}
        isEmpty={(v) => v.items.length === 0}
        empty={
          query ? (
            <p className="muted" data-testid="prompts-no-match">
              No prompt’s name or description contains “{query}”.
            </p>
          ) : (
            <EmptyState />
          )
        }
      >
        {({ items: prompts, more, total }) => (
          <>
            <ListTable testId="prompts-table" columns={COLUMNS} className="table prompts-table">
              <tbody>
                {prompts.map((p) => (
                  <tr key={p.id} data-testid="prompt-row" data-prompt-name={p.repo_handle}>
                    <td className="prompt-name-cell">
                      <a data-testid="prompt-name" {...linkProps(promptRoute(p.repo_handle))}>
                        {p.repo_handle}
                      </a>
                      {p.description && (
                        <div className="muted prompt-description" data-testid="prompt-description">
                          {p.description}
                        </div>
                      )}
                    </td>
                    <td className="prompt-tags" data-testid="prompt-tags">
                      {p.tags.map((t) => (
                        <span key={t} className="tag">
                          {t}
                        </span>
                      ))}
                    </td>
                    <td className="num" data-testid="prompt-commits">
                      {count(p.num_commits)}
                    </td>
                    <td data-testid="prompt-last-commit">
                      <LastCommit credentials={credentials} prompt={p} />
                    </td>
                    <td className="num">
                      <LikeButton credentials={credentials} prompt={p} />
                    </td>
                    <td className="row-actions">
                      <button
                        type="button"
                        className="link-button danger-link"
                        data-testid="prompt-delete"
                        onClick={() => setDeleting(p)}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </ListTable>
            {more && (
              <ShowMore
                testId="prompts-more"
                what="prompts"
                note={`${count(prompts.length)} of ${count(total ?? prompts.length)} prompts`}
                onMore={load.showMore}
              />
            )}
          </>
        )}
      </ListState>
      {creating && (
        <NewPromptDialog
          credentials={credentials}
          onCancel={() => setCreating(false)}
          onDone={(name) => navigate(promptRoute(name))}
        />
      )}
      {deleting && (
        <DeletePromptDialog
          credentials={credentials}
          prompt={deleting}
          onCancel={() => setDeleting(null)}
          onDone={() => {
            setDeleting(null);
            setVersion((v) => v + 1);
          }}
        />
      )}
    </section>
  );
}

/** When each last commit was made, by its hash: read once per hash while the page is open. */
const commitTimes = new Map<string, Promise<string>>();

function LastCommit({ credentials, prompt: p }: { credentials: Credentials; prompt: Prompt }) {
  const hash = p.last_commit_hash;
  const time = useLoad(async () => {
    if (!hash) return null;
    let read = commitTimes.get(hash);
    if (!read) {
      read = readCommit(credentials, p.repo_handle, hash).then((c) => c.created_at);
      read.catch(() => commitTimes.delete(hash));
      commitTimes.set(hash, read);
    }
    return read;
  }, [credentials.apiKey, credentials.workspaceId, p.repo_handle, hash]);
  if (!hash) return <span className="muted">no commits</span>;
  return (
    <>
      <code className="hash">{shortHash(hash)}</code>{' '}
      <span className="muted" data-testid="last-commit-time" title={time.state === 'done' ? (time.value ?? '') : ''}>
        {time.state === 'done' ? ago(time.value) : time.state === 'error' ? '' : '…'}
      </span>
    </>
  );
}

/** The likes, the caller's own toggled by a click (as their API key). */
function LikeButton({ credentials, prompt: p }: { credentials: Credentials; prompt: Prompt }) {
  const [state, setState] = useState({ likes: p.num_likes, mine: p.liked_by_auth_user === true });
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => setState({ likes: p.num_likes, mine: p.liked_by_auth_user === true }), [p]);
  const toggle = async () => {
    setBusy(true);
    setFailed(null);
    try {
      const likes = await likePrompt(credentials, p.repo_handle, !state.mine);
      setState({ likes, mine: !state.mine });
    } catch (err) {
      setFailed(asApiError(err).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      className={state.mine ? 'like-button liked' : 'like-button'}
      data-testid="prompt-likes"
      aria-pressed={state.mine}
      title={failed ? `Not changed: ${failed}` : state.mine ? 'You like it: click to unlike' : 'Like it'}
      disabled={busy}
      onClick={toggle}
    >
      {state.mine ? '♥' : '♡'} {count(state.likes)}
      {failed && <span className="error"> !</span>}
    </button>
  );
}

function EmptyState() {
  const origin = location.origin;
  return (
    <EmptyCard testId="prompts-empty" title="No prompts yet">
      <p>
        A prompt is a named template with its versions (commits), pulled by name, tag or hash. Create one here with New
        prompt, or push one from the <code>langsmith</code> client:
      </p>
      <pre>{`import { Client } from "langsmith";
import { ChatPromptTemplate } from "@langchain/core/prompts";
const client = new Client({ apiUrl: "${origin}", apiKey: "<your API key>" });
const prompt = ChatPromptTemplate.fromMessages([["system", "Answer in {language}."], ["human", "{question}"]]);
await client.pushPrompt("my-prompt", { object: prompt, commitTags: ["prod"] });`}</pre>
    </EmptyCard>
  );
}
