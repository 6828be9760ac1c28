// The head of every view of one project: the crumbs back to the projects, the project's name (one
// GET /sessions/:id), and its tabs (traces, threads, analytics), the current one marked.
import type { ReactNode } from 'react';
import { getProject, type Credentials } from './api.ts';
import { linkProps, projectTabRoute, type ProjectTab } from './route.ts';
import { useLoad } from './useLoad.ts';

const TABS: { tab: ProjectTab; label: string }[] = [
  { tab: 'traces', label: 'Traces' },
  { tab: 'threads', label: 'Threads' },
  { tab: 'analytics', label: 'Analytics' },
];

export function ProjectHeader({
  credentials,
  projectId,
  tab,
  trail,
}: {
  credentials: Credentials;
  projectId: string;
  tab: ProjectTab;
  trail?: ReactNode;
}) {
  const project = useLoad(() => getProject(credentials, projectId), [credentials, projectId]);
  return (
    <header className="project-head">
      <nav className="crumbs">
        <a {...linkProps({ page: 'projects', search: '' })}>Projects</a> /{' '}
        <span data-testid="project-name">{project.state === 'done' ? project.value.name : '…'}</span>
        {trail && <> / {trail}</>}
      </nav>
      <nav className="tabs" aria-label="Project views">
        {TABS.map((t) => (
          <a
            key={t.tab}
            data-testid={`tab-${t.tab}`}
            className={t.tab === tab ? 'tab current' : 'tab'}
            aria-current={t.tab === tab ? 'page' : undefined}
            {...linkProps(projectTabRoute(projectId, t.tab))}
          >
            {t.label}
          </a>
        ))}
      </nav>
    </header>
  );
}
