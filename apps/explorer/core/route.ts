// The explorer's client-side routes under /ui/: every view is a URL (a link reproduces it), read
// from and written to the History API. No router library: a handful of paths.
import { useEffect, useState, type MouseEvent } from 'react';
import { tracesViewOf, tracesViewParams, type TracesView } from '../traces/traceView.ts';

export const BASE = '/ui/';

export type Route =
  | { page: 'projects'; search: string }
  | ({ page: 'traces'; projectId: string; filter: string; cursor: string | null } & TracesView)
  | { page: 'trace'; projectId: string; traceId: string; runId: string | null }
  /** A run link (the clients' getRunUrl, redirected by the API): resolved to its trace. */
  | { page: 'run'; projectId: string; runId: string; workspaceId: string | null }
  /** A project's threads (conversations) active in the time range, and one thread as its turns. */
  | { page: 'threads'; projectId: string; range: TimeRange }
  | { page: 'thread'; projectId: string; threadId: string }
  /** A project's charts over the time range. */
  | { page: 'analytics'; projectId: string; range: TimeRange }
  /** The workspace's bulk exports and their destinations; with an export id, that export and its runs. */
  | { page: 'exports'; exportId?: string }
  /** The agent-server deployments of the control plane. */
  | { page: 'deployments' }
  /** The workspace's datasets, searched by name (`?q=`). */
  | { page: 'datasets'; search: string };

/** How far back the threads and analytics views look, ending now (`?range=` in the URL). */
export const TIME_RANGES = ['1h', '6h', '24h', '7d', '30d', '90d'] as const;
export type TimeRange = (typeof TIME_RANGES)[number];
export const DEFAULT_TIME_RANGE: TimeRange = '7d';
const timeRangeParam = (value: string | null): TimeRange =>
  (TIME_RANGES as readonly string[]).includes(value ?? '') ? (value as TimeRange) : DEFAULT_TIME_RANGE;

/** The views of one project, as tabs. */
export type ProjectTab = 'traces' | 'threads' | 'analytics';

export function parseRoute(location: Pick<Location, 'pathname' | 'search'>): Route {
  const params = new URLSearchParams(location.search);
  const parts = location.pathname.slice(BASE.length).split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'exports') return parts[1] ? { page: 'exports', exportId: parts[1] } : { page: 'exports' };
  if (parts[0] === 'deployments') return { page: 'deployments' };
  if (parts[0] === 'datasets') return { page: 'datasets', search: params.get('q') ?? '' };
  if (parts[0] === 'projects' && parts[1]) {
    const projectId = parts[1];
    if (parts[2] === 'threads' && parts[3]) return { page: 'thread', projectId, threadId: parts[3] };
    if (parts[2] === 'threads') return { page: 'threads', projectId, range: timeRangeParam(params.get('range')) };
    if (parts[2] === 'analytics') return { page: 'analytics', projectId, range: timeRangeParam(params.get('range')) };
    if (parts[2] === 'traces' && parts[3])
      return { page: 'trace', projectId, traceId: parts[3], runId: params.get('run') };
    if (parts[2] === 'runs' && parts[3])
      return { page: 'run', projectId, runId: parts[3], workspaceId: params.get('workspace') };
    return {
      page: 'traces',
      projectId,
      filter: params.get('filter') ?? '',
      cursor: params.get('cursor'),
      ...tracesViewOf(params),
    };
  }
  return { page: 'projects', search: params.get('q') ?? '' };
}

export function routeUrl(route: Route): string {
  const query = (entries: Record<string, string | null>) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(entries)) if (v) params.set(k, v);
    const s = params.toString();
    return s ? `?${s}` : '';
  };
  switch (route.page) {
    case 'projects':
      return `${BASE}${query({ q: route.search })}`;
    case 'traces':
      return `${BASE}projects/${route.projectId}${query({ filter: route.filter, ...tracesViewParams(route), cursor: route.cursor })}`;
    case 'trace':
      return `${BASE}projects/${route.projectId}/traces/${route.traceId}${query({ run: route.runId })}`;
    case 'run':
      return `${BASE}projects/${route.projectId}/runs/${route.runId}${query({ workspace: route.workspaceId })}`;
    case 'threads':
      return `${BASE}projects/${route.projectId}/threads${query({ range: route.range === DEFAULT_TIME_RANGE ? null : route.range })}`;
    case 'thread':
      return `${BASE}projects/${route.projectId}/threads/${encodeURIComponent(route.threadId)}`;
    case 'analytics':
      return `${BASE}projects/${route.projectId}/analytics${query({ range: route.range === DEFAULT_TIME_RANGE ? null : route.range })}`;
    case 'exports':
      return `${BASE}exports${route.exportId ? `/${route.exportId}` : ''}`;
    case 'deployments':
      return `${BASE}deployments`;
    case 'datasets':
      return `${BASE}datasets${query({ q: route.search })}`;
  }
}

const listeners = new Set<() => void>();

export function navigate(route: Route, options: { replace?: boolean } = {}): void {
  const url = routeUrl(route);
  if (url === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((l) => l());
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location));
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** A link that navigates without reloading the page (and opens in a new tab as a link does). */
export function linkProps(route: Route): { href: string; onClick: (e: MouseEvent) => void } {
  return {
    href: routeUrl(route),
    onClick: (e) => {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      navigate(route);
    },
  };
}

/** The route of a project's tab, with the tab's defaults. */
export function projectTabRoute(projectId: string, tab: ProjectTab): Route {
  switch (tab) {
    case 'traces':
      return { page: 'traces', projectId, filter: '', cursor: null };
    case 'threads':
      return { page: 'threads', projectId, range: DEFAULT_TIME_RANGE };
    case 'analytics':
      return { page: 'analytics', projectId, range: DEFAULT_TIME_RANGE };
  }
}
