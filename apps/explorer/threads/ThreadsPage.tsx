// A project's threads (conversations) and one thread as its turns.
import type { Credentials } from '../core/api.ts';
import { ProjectHeader } from '../core/ProjectHeader.tsx';
import type { Route } from '../core/route.ts';

export function ThreadsPage({ credentials, route }: { credentials: Credentials; route: Extract<Route, { page: 'threads' }> }) {
  return <ProjectHeader credentials={credentials} projectId={route.projectId} tab="threads" />;
}

export function ThreadPage({ credentials, route }: { credentials: Credentials; route: Extract<Route, { page: 'thread' }> }) {
  return <ProjectHeader credentials={credentials} projectId={route.projectId} tab="threads" trail={<span>{route.threadId}</span>} />;
}
