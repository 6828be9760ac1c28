// A project's charts over time.
import type { Credentials } from '../core/api.ts';
import { ProjectHeader } from '../core/ProjectHeader.tsx';
import type { Route } from '../core/route.ts';

export function AnalyticsPage({ credentials, route }: { credentials: Credentials; route: Extract<Route, { page: 'analytics' }> }) {
  return <ProjectHeader credentials={credentials} projectId={route.projectId} tab="analytics" />;
}
