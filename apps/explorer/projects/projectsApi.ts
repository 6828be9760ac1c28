// The projects page's calls: the list without statistics (answers at once, from the project
// registry), the same list with statistics (reads ClickHouse), the activity of the listed
// projects in one request (POST /sessions/activity), and create, rename, delete.
import { apiCall, type Credentials, type Project } from '../core/api.ts';

/** Projects are listed this many at a time (the API's page limit, and the activity route's). */
export const PROJECTS_PAGE = 100;

/** One page of the projects whose name contains the search (case-insensitive; all when empty), newest first. */
const sessionsPath = (offset: number, search: string, stats: boolean) => {
  const params = new URLSearchParams(stats ? { include_stats: 'true' } : {});
  params.set('limit', String(PROJECTS_PAGE));
  params.set('offset', String(offset));
  if (search) params.set('name_contains', search);
  return `/sessions?${params}`;
};
export const listProjectsPlain = (c: Credentials, offset: number, search: string) =>
  apiCall<Project[]>(c, 'GET', sessionsPath(offset, search, false));
export const listProjectsWithStats = (c: Credentials, offset: number, search: string) =>
  apiCall<Project[]>(c, 'GET', sessionsPath(offset, search, true));

export interface ProjectsActivity {
  start_time: string;
  end_time: string;
  /** The bucket size, e.g. "6h". */
  interval: string;
  bucket_starts: string[];
  projects: { session_id: string; trace_count: number[]; trace_error_count: number[] }[];
}

/** Traces per 6 hours over the last 7 days, for each project. */
export const projectsActivity = (c: Credentials, projectIds: string[]) =>
  apiCall<ProjectsActivity>(c, 'POST', '/sessions/activity', { session: projectIds, bucket: '6h' });

export const createProject = (c: Credentials, name: string, description: string | null) =>
  apiCall<Project>(c, 'POST', '/sessions', { name, description });
export const renameProject = (c: Credentials, id: string, name: string) =>
  apiCall<Project>(c, 'PATCH', `/sessions/${id}`, { name });
export const deleteProject = (c: Credentials, id: string) => apiCall<null>(c, 'DELETE', `/sessions/${id}`);
