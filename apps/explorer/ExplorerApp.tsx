// The explorer's shell: sign-in with an API key (kept in localStorage), the workspace a key of
// several workspaces acts in (GET /workspaces), sign-out, and the view the URL names.
import { useEffect, useState } from 'react';
import { SignIn } from '../shared/SignIn.tsx';
import { listWorkspaces, storeCredentials, storedCredentials, type Credentials } from './core/api.ts';
import { DATASET_PAGES, linkProps, navigate, PROMPT_PAGES, useRoute, type Route } from './core/route.ts';
import { useLoad } from './core/useLoad.ts';
import { ProjectsPage } from './projects/ProjectsPage.tsx';
import { TracesPage } from './traces/TracesPage.tsx';
import { TracePage, RunRedirect } from './trace/TracePage.tsx';
import { ThreadsPage, ThreadPage } from './threads/ThreadsPage.tsx';
import { AnalyticsPage } from './analytics/AnalyticsPage.tsx';
import { ExportsPage } from './exports/ExportsPage.tsx';
import { DeploymentsPage } from './deployments/DeploymentsPage.tsx';
import { DatasetsPage } from './datasets/DatasetsPage.tsx';
import { DatasetPage } from './datasets/DatasetPage.tsx';
import { ComparePage } from './datasets/ComparePage.tsx';
import { QueuesPage } from './annotation-queues/QueuesPage.tsx';
import { ReviewPage } from './annotation-queues/ReviewPage.tsx';
import { PromptsPage } from './prompts/PromptsPage.tsx';
import { PromptPage } from './prompts/PromptPage.tsx';
import { PromptDiffPage } from './prompts/PromptDiffPage.tsx';

/** The views under "Projects" in the top bar. */
const projectPages = new Set<Route['page']>(['projects', 'traces', 'trace', 'run', 'threads', 'thread', 'analytics']);

export function ExplorerApp() {
  const [credentials, setCredentials] = useState<Credentials | null>(storedCredentials);
  const route = useRoute();
  const signIn = (c: Credentials | null) => {
    storeCredentials(c);
    setCredentials(c);
  };
  // A run link names the workspace the run is in: a key of several workspaces acts there.
  const linkedWorkspace = route.page === 'run' ? route.workspaceId : null;
  useEffect(() => {
    if (credentials?.workspaceId && linkedWorkspace && linkedWorkspace !== credentials.workspaceId)
      signIn({ ...credentials, workspaceId: linkedWorkspace });
  }, [credentials, linkedWorkspace]);
  if (!credentials)
    return (
      <SignIn
        title="Trace explorer"
        hint={<p>Sign in with an API key of this server. It stays in this browser only.</p>}
        listWorkspaces={listWorkspaces}
        onSignIn={signIn}
        suggestedWorkspace={linkedWorkspace}
      />
    );
  return (
    <div className="shell">
      <header className="topbar">
        <a className="brand" {...linkProps({ page: 'projects', search: '' })}>
          Trace explorer
        </a>
        <nav className="topnav" aria-label="Sections">
          <a
            data-testid="nav-projects"
            className={projectPages.has(route.page) ? 'current' : ''}
            {...linkProps({ page: 'projects', search: '' })}
          >
            Projects
          </a>
          <a
            data-testid="nav-datasets"
            className={DATASET_PAGES.has(route.page) ? 'current' : ''}
            {...linkProps({ page: 'datasets', search: '' })}
          >
            Datasets
          </a>
          <a
            data-testid="nav-annotation-queues"
            className={route.page === 'annotationQueues' || route.page === 'annotationQueueReview' ? 'current' : ''}
            {...linkProps({ page: 'annotationQueues', search: '' })}
          >
            Annotation queues
          </a>
          <a
            data-testid="nav-prompts"
            className={PROMPT_PAGES.has(route.page) ? 'current' : ''}
            {...linkProps({ page: 'prompts', search: '' })}
          >
            Prompts
          </a>
          <a
            data-testid="nav-exports"
            className={route.page === 'exports' ? 'current' : ''}
            {...linkProps({ page: 'exports' })}
          >
            Bulk exports
          </a>
          <a
            data-testid="nav-deployments"
            className={route.page === 'deployments' ? 'current' : ''}
            {...linkProps({ page: 'deployments' })}
          >
            Deployments
          </a>
        </nav>
        <WorkspaceSwitcher credentials={credentials} onChange={signIn} />
        <button type="button" className="ghost" data-testid="sign-out" onClick={() => signIn(null)}>
          Sign out
        </button>
      </header>
      <main className="content">
        {route.page === 'projects' && <ProjectsPage credentials={credentials} search={route.search} />}
        {route.page === 'traces' && <TracesPage credentials={credentials} route={route} />}
        {route.page === 'trace' && <TracePage credentials={credentials} route={route} />}
        {route.page === 'run' && <RunRedirect credentials={credentials} route={route} />}
        {route.page === 'threads' && <ThreadsPage credentials={credentials} route={route} />}
        {route.page === 'thread' && <ThreadPage credentials={credentials} route={route} />}
        {route.page === 'analytics' && <AnalyticsPage credentials={credentials} route={route} />}
        {route.page === 'exports' && (
          <ExportsPage
            credentials={credentials}
            exportId={route.exportId ?? null}
            preset={route.exportDataset ?? null}
          />
        )}
        {route.page === 'deployments' && <DeploymentsPage credentials={credentials} />}
        {route.page === 'datasets' && <DatasetsPage credentials={credentials} search={route.search} />}
        {(route.page === 'dataset' || route.page === 'datasetDiff' || route.page === 'datasetExperiments') && (
          <DatasetPage credentials={credentials} route={route} />
        )}
        {route.page === 'datasetCompare' && <ComparePage credentials={credentials} route={route} />}
        {route.page === 'annotationQueues' && <QueuesPage credentials={credentials} search={route.search} />}
        {route.page === 'annotationQueueReview' && (
          <ReviewPage key={route.queueId} credentials={credentials} queueId={route.queueId} />
        )}
        {route.page === 'prompts' && <PromptsPage credentials={credentials} search={route.search} />}
        {route.page === 'prompt' && <PromptPage key={route.name} credentials={credentials} route={route} />}
        {route.page === 'promptDiff' && <PromptDiffPage key={route.name} credentials={credentials} route={route} />}
      </main>
    </div>
  );
}

/** The workspace the key acts in: a switcher when it has several, its name when one. */
function WorkspaceSwitcher({
  credentials,
  onChange,
}: {
  credentials: Credentials;
  onChange: (c: Credentials) => void;
}) {
  const workspaces = useLoad(() => listWorkspaces(credentials.apiKey), [credentials.apiKey]);
  if (workspaces.state !== 'done') return null;
  const list = workspaces.value;
  if (list.length <= 1)
    return (
      <span className="workspace-name" data-testid="workspace-name">
        {list[0]?.display_name}
      </span>
    );
  return (
    <select
      className="workspace-select"
      data-testid="workspace-select"
      aria-label="Workspace"
      value={credentials.workspaceId ?? list[0]!.id}
      onChange={(e) => {
        onChange({ ...credentials, workspaceId: e.target.value });
        navigate({ page: 'projects', search: '' });
      }}
    >
      {list.map((w) => (
        <option key={w.id} value={w.id}>
          {w.display_name}
        </option>
      ))}
    </select>
  );
}
