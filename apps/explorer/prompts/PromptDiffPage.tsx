// What changed in a prompt from one commit to another: two commits chosen in the URL (hashes or
// tags; by default the latest and its parent), each read with its model, their manifests as text
// (manifest.ts: each message's role and template, the model's settings) compared line by line and
// word by word (promptDiff.ts), shown unified or side by side, additions green and deletions red.
import { Fragment, useState } from 'react';
import type { Credentials } from '../core/api.ts';
import { ago, count } from '../core/format.ts';
import { EmptyCard, LoadState } from '../core/ListState.tsx';
import { navigate, type Route } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import { shortHash } from './CommitDialog.tsx';
import { manifestText, readManifest } from './manifest.ts';
import { type DiffBlock, diffCounts, diffText, type Segment } from './promptDiff.ts';
import { PromptHeader } from './PromptHeader.tsx';
import { getPrompt, listCommits, listTags, type PromptCommit, type PromptTag, readCommit } from './promptsApi.ts';
import './prompts.css';

type DiffRoute = Extract<Route, { page: 'promptDiff' }>;

export function PromptDiffPage({ credentials, route }: { credentials: Credentials; route: DiffRoute }) {
  const { name } = route;
  const who = [credentials.apiKey, credentials.workspaceId, name];
  const prompt = useLoad(() => getPrompt(credentials, name), who);
  const list = useLoad(() => Promise.all([listCommits(credentials, name, 0), listTags(credentials, name)]), who);
  return (
    <section>
      <PromptHeader prompt={prompt} name={name} tab="diff" />
      <LoadState load={list} what="commits" onRetry={list.refresh}>
        {([{ commits }, tags]) => {
          if (commits.length < 2 && !(route.from && route.to))
            return (
              <EmptyCard testId="diff-too-few" title="Nothing to compare yet">
                <p>
                  {commits.length === 0 ? 'This prompt has no commits.' : 'This prompt has one commit.'} Commit a change
                  to it, then compare the two here.
                </p>
              </EmptyCard>
            );
          const from = route.from ?? commits[1]!.commit_hash;
          const to = route.to ?? commits[0]!.commit_hash;
          const go = (change: Partial<DiffRoute>) => navigate({ ...route, from, to, ...change }, { replace: true });
          return (
            <>
              <div className="dataset-toolbar">
                <CommitSelect
                  label="From"
                  testId="diff-from"
                  value={from}
                  commits={commits}
                  tags={tags}
                  onChange={(v) => go({ from: v })}
                />
                <CommitSelect
                  label="To"
                  testId="diff-to"
                  value={to}
                  commits={commits}
                  tags={tags}
                  onChange={(v) => go({ to: v })}
                />
                <button
                  type="button"
                  className="ghost"
                  data-testid="diff-swap"
                  onClick={() => go({ from: to, to: from })}
                >
                  Swap
                </button>
              </div>
              <CommitDiff key={`${from}|${to}`} credentials={credentials} name={name} from={from} to={to} />
            </>
          );
        }}
      </LoadState>
    </section>
  );
}

function commitLabel(c: PromptCommit, tags: readonly PromptTag[], latest: boolean): string {
  const on = tags.filter((t) => t.commit_id === c.id).map((t) => t.tag_name);
  if (latest) on.unshift('latest');
  return [shortHash(c.commit_hash), ago(c.created_at), on.join(', '), c.description ?? ''].filter(Boolean).join(' · ');
}

function CommitSelect({
  label,
  testId,
  value,
  commits,
  tags,
  onChange,
}: {
  label: string;
  testId: string;
  /** A hash, its prefix or a tag. */
  value: string;
  commits: readonly PromptCommit[];
  tags: readonly PromptTag[];
  onChange: (value: string) => void;
}) {
  const found =
    commits.find((c) => c.commit_hash === value) ??
    commits.find((c) => c.id === tags.find((t) => t.tag_name === value)?.commit_id) ??
    commits.find((c) => c.commit_hash.startsWith(value.toLowerCase()));
  const selected = found?.commit_hash ?? value;
  return (
    <label className="field-inline">
      <span className="muted">{label}</span>
      <select className="range-select" data-testid={testId} value={selected} onChange={(e) => onChange(e.target.value)}>
        {!found && <option value={value}>{value}</option>}
        {commits.map((c, i) => (
          <option key={c.id} value={c.commit_hash}>
            {commitLabel(c, tags, i === 0)}
          </option>
        ))}
      </select>
    </label>
  );
}

function CommitDiff({
  credentials,
  name,
  from,
  to,
}: {
  credentials: Credentials;
  name: string;
  from: string;
  to: string;
}) {
  const [split, setSplit] = useState(false);
  const diff = useLoad(async () => {
    const [a, b] = await Promise.all([readCommit(credentials, name, from), readCommit(credentials, name, to)]);
    const text = (m: Record<string, unknown>) => manifestText(readManifest(m), m);
    return { a, b, blocks: diffText(text(a.manifest), text(b.manifest)) };
  }, [credentials.apiKey, credentials.workspaceId, name, from, to]);
  return (
    <LoadState load={diff} what="the two commits" onRetry={diff.refresh}>
      {({ a, b, blocks }) => {
        const { added, removed } = diffCounts(blocks);
        return (
          <div className="card prompt-diff" data-testid="prompt-diff">
            <div className="prompt-diff-head">
              <span data-testid="diff-summary">
                <code>{shortHash(a.commit_hash)}</code> → <code>{shortHash(b.commit_hash)}</code>:{' '}
                {added === 0 && removed === 0 ? (
                  <span className="muted">the same text</span>
                ) : (
                  <>
                    <span className="diff-added-count diff-count">+{count(added)}</span>{' '}
                    <span className="diff-removed-count diff-count">−{count(removed)}</span> lines
                  </>
                )}
              </span>
              <span className="diff-mode" role="group" aria-label="Diff layout">
                <button
                  type="button"
                  className={split ? 'ghost small' : 'ghost small on'}
                  data-testid="diff-unified"
                  onClick={() => setSplit(false)}
                >
                  Unified
                </button>
                <button
                  type="button"
                  className={split ? 'ghost small on' : 'ghost small'}
                  data-testid="diff-split"
                  onClick={() => setSplit(true)}
                >
                  Side by side
                </button>
              </span>
            </div>
            {split ? <SplitDiff blocks={blocks} /> : <UnifiedDiff blocks={blocks} />}
          </div>
        );
      }}
    </LoadState>
  );
}

function Pieces({ segments }: { segments: Segment[] }) {
  return (
    <>
      {segments.map((s, i) =>
        s.changed ? (
          <span key={i} className="diff-word">
            {s.text}
          </span>
        ) : (
          <Fragment key={i}>{s.text}</Fragment>
        ),
      )}
    </>
  );
}

function UnifiedDiff({ blocks }: { blocks: DiffBlock[] }) {
  return (
    <table className="diff-table" data-testid="diff-unified-table">
      <tbody>
        {blocks.map((b, i) =>
          b.kind === 'same' ? (
            b.lines.map((l) => (
              <tr key={`${i}-${l.oldNo}`} className="diff-same" data-testid="diff-line" data-change="same">
                <td className="diff-no">{l.oldNo}</td>
                <td className="diff-no">{l.newNo}</td>
                <td className="diff-sign" />
                <td className="diff-text">{l.text}</td>
              </tr>
            ))
          ) : (
            <Fragment key={i}>
              {b.removed.map((l) => (
                <tr key={`r${l.no}`} className="diff-removed" data-testid="diff-line" data-change="removed">
                  <td className="diff-no">{l.no}</td>
                  <td className="diff-no" />
                  <td className="diff-sign">−</td>
                  <td className="diff-text">
                    <Pieces segments={l.segments} />
                  </td>
                </tr>
              ))}
              {b.added.map((l) => (
                <tr key={`a${l.no}`} className="diff-added" data-testid="diff-line" data-change="added">
                  <td className="diff-no" />
                  <td className="diff-no">{l.no}</td>
                  <td className="diff-sign">+</td>
                  <td className="diff-text">
                    <Pieces segments={l.segments} />
                  </td>
                </tr>
              ))}
            </Fragment>
          ),
        )}
      </tbody>
    </table>
  );
}

function SplitDiff({ blocks }: { blocks: DiffBlock[] }) {
  return (
    <table className="diff-table split" data-testid="diff-split-table">
      <tbody>
        {blocks.map((b, i) =>
          b.kind === 'same'
            ? b.lines.map((l) => (
                <tr key={`${i}-${l.oldNo}`} className="diff-same">
                  <td className="diff-no">{l.oldNo}</td>
                  <td className="diff-text">{l.text}</td>
                  <td className="diff-no">{l.newNo}</td>
                  <td className="diff-text">{l.text}</td>
                </tr>
              ))
            : Array.from({ length: Math.max(b.removed.length, b.added.length) }, (_, j) => {
                const left = b.removed[j];
                const right = b.added[j];
                return (
                  <tr key={`${i}-${j}`}>
                    <td className={left ? 'diff-no diff-removed' : 'diff-no diff-empty'}>{left?.no}</td>
                    <td className={left ? 'diff-text diff-removed' : 'diff-text diff-empty'}>
                      {left && <Pieces segments={left.segments} />}
                    </td>
                    <td className={right ? 'diff-no diff-added' : 'diff-no diff-empty'}>{right?.no}</td>
                    <td className={right ? 'diff-text diff-added' : 'diff-text diff-empty'}>
                      {right && <Pieces segments={right.segments} />}
                    </td>
                  </tr>
                );
              }),
        )}
      </tbody>
    </table>
  );
}
