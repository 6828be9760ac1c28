// The head of every view of one prompt: the crumbs back to the prompts, the prompt's name, its
// description, commits, likes and tags, how clients pull it, and its tabs (the prompt and its
// commits; compare commits), the current one marked.
import { count } from '../core/format.ts';
import { linkProps, type PromptTab, promptTabRoute } from '../core/route.ts';
import type { Load } from '../core/useLoad.ts';
import type { Prompt } from './promptsApi.ts';

/** "1 commit", "2 commits". */
const counted = (n: number, what: string) => `${count(n)} ${n === 1 ? what : `${what}s`}`;

const TABS: { tab: PromptTab; label: string }[] = [
  { tab: 'prompt', label: 'Prompt and commits' },
  { tab: 'diff', label: 'Compare commits' },
];

export function PromptHeader({ prompt, name, tab }: { prompt: Load<Prompt>; name: string; tab: PromptTab }) {
  const p = prompt.state === 'done' ? prompt.value : null;
  return (
    <header className="project-head">
      <nav className="crumbs">
        <a {...linkProps({ page: 'prompts', search: '' })}>Prompts</a> / <span data-testid="prompt-title">{name}</span>
      </nav>
      {p && (
        <p className="prompt-facts muted" data-testid="prompt-facts">
          {counted(p.num_commits, 'commit')} · {counted(p.num_likes, 'like')}
          {p.tags.map((t) => (
            <span key={t} className="tag">
              {t}
            </span>
          ))}
          {p.description && <> · {p.description}</>}
          <span className="prompt-pull">
            pull: <code>{name}</code>, <code>{name}:&lt;tag or hash&gt;</code>
          </span>
        </p>
      )}
      <nav className="tabs" aria-label="Prompt views">
        {TABS.map((t) => (
          <a
            key={t.tab}
            data-testid={`tab-${t.tab}`}
            className={t.tab === tab ? 'tab current' : 'tab'}
            aria-current={t.tab === tab ? 'page' : undefined}
            {...linkProps(promptTabRoute(name, t.tab))}
          >
            {t.label}
          </a>
        ))}
      </nav>
    </header>
  );
}
