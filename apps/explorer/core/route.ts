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
  /**
   * The workspace's bulk exports and their destinations; with an export id, that export and its
   * runs; with a dataset (`?dataset=…&as_of=…`), the new-export form open on that dataset's version.
   */
  | { page: 'exports'; exportId?: string; exportDataset?: { datasetId: string; asOf: string | null } }
  /** The agent-server deployments of the control plane. */
  | { page: 'deployments' }
  /** The workspace's datasets, searched by name (`?q=`). */
  | { page: 'datasets'; search: string }
  /** A dataset's examples at a version (a time or tag; null: the latest), in a split, from an offset. */
  | { page: 'dataset'; datasetId: string; asOf: string | null; split: string | null; offset: number }
  /** What changed in a dataset from one version to another (times or tags; null: the defaults). */
  | { page: 'datasetDiff'; datasetId: string; from: string | null; to: string | null }
  /** The experiments run against a dataset, and its saved comparisons. */
  | { page: 'datasetExperiments'; datasetId: string }
  /** Experiments of a dataset side by side, example by example; the first is the baseline. */
  | { page: 'datasetCompare'; datasetId: string; experimentIds: string[] }
  /** The workspace's annotation queues, searched by name (`?q=`). */
  | { page: 'annotationQueues'; search: string }
  /** A reviewer's page of a queue: the next run needing the caller's review. */
  | { page: 'annotationQueueReview'; queueId: string }
  /** The workspace's prompts (the hub), searched by name or description (`?q=`). */
  | { page: 'prompts'; search: string }
  /** A prompt: the commit a ref names (a hash, its prefix or a tag; null: the latest) beside its commits. */
  | { page: 'prompt'; name: string; commit: string | null }
  /** What changed in a prompt from one commit to another (refs; null: the latest and its parent). */
  | { page: 'promptDiff'; name: string; from: string | null; to: string | null };

/** How far back the threads and analytics views look, ending now (`?range=` in the URL). */
export const TIME_RANGES = ['1h', '6h', '24h', '7d', '30d', '90d'] as const;
export type TimeRange = (typeof TIME_RANGES)[number];
export const DEFAULT_TIME_RANGE: TimeRange = '7d';
const timeRangeParam = (value: string | null): TimeRange =>
  (TIME_RANGES as readonly string[]).includes(value ?? '') ? (value as TimeRange) : DEFAULT_TIME_RANGE;

/** The views of one project, as tabs. */
export type ProjectTab = 'traces' | 'threads' | 'analytics';

/** The views of one dataset, as tabs. */
export type DatasetTab = 'examples' | 'diff' | 'experiments';

/** The views of one prompt, as tabs. */
export type PromptTab = 'prompt' | 'diff';

/** The pages under "Prompts" in the top bar. */
export const PROMPT_PAGES: ReadonlySet<Route['page']> = new Set(['prompts', 'prompt', 'promptDiff']);

/** The pages under "Datasets" in the top bar. */
export const DATASET_PAGES: ReadonlySet<Route['page']> = new Set([
  'datasets',
  'dataset',
  'datasetDiff',
  'datasetExperiments',
  'datasetCompare',
]);

export function parseRoute(location: Pick<Location, 'pathname' | 'search'>): Route {
  const params = new URLSearchParams(location.search);
  const parts = location.pathname.slice(BASE.length).split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'exports') {
    if (parts[1]) return { page: 'exports', exportId: parts[1] };
    const datasetId = params.get('dataset');
    return datasetId
      ? { page: 'exports', exportDataset: { datasetId, asOf: params.get('as_of') } }
      : { page: 'exports' };
  }
  if (parts[0] === 'deployments') return { page: 'deployments' };
  if (parts[0] === 'datasets' && parts[1]) {
    const datasetId = parts[1];
    if (parts[2] === 'versions')
      return { page: 'datasetDiff', datasetId, from: params.get('from'), to: params.get('to') };
    if (parts[2] === 'experiments') return { page: 'datasetExperiments', datasetId };
    if (parts[2] === 'compare')
      return {
        page: 'datasetCompare',
        datasetId,
        experimentIds: (params.get('experiments') ?? '').split(',').filter(Boolean),
      };
    const offset = Number.parseInt(params.get('offset') ?? '', 10);
    return {
      page: 'dataset',
      datasetId,
      asOf: params.get('as_of'),
      split: params.get('split'),
      offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
    };
  }
  if (parts[0] === 'datasets') return { page: 'datasets', search: params.get('q') ?? '' };
  if (parts[0] === 'annotation-queues' && parts[1]) return { page: 'annotationQueueReview', queueId: parts[1] };
  if (parts[0] === 'annotation-queues') return { page: 'annotationQueues', search: params.get('q') ?? '' };
  if (parts[0] === 'prompts' && parts[1]) {
    if (parts[2] === 'compare')
      return { page: 'promptDiff', name: parts[1], from: params.get('from'), to: params.get('to') };
    return { page: 'prompt', name: parts[1], commit: params.get('commit') };
  }
  if (parts[0] === 'prompts') return { page: 'prompts', search: params.get('q') ?? '' };
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
      if (route.exportId) return `${BASE}exports/${route.exportId}`;
      return `${BASE}exports${query({ dataset: route.exportDataset?.datasetId ?? null, as_of: route.exportDataset?.asOf ?? null })}`;
    case 'deployments':
      return `${BASE}deployments`;
    case 'datasets':
      return `${BASE}datasets${query({ q: route.search })}`;
    case 'dataset':
      return `${BASE}datasets/${route.datasetId}${query({ as_of: route.asOf, split: route.split, offset: route.offset ? String(route.offset) : null })}`;
    case 'datasetDiff':
      return `${BASE}datasets/${route.datasetId}/versions${query({ from: route.from, to: route.to })}`;
    case 'datasetExperiments':
      return `${BASE}datasets/${route.datasetId}/experiments`;
    case 'datasetCompare':
      return `${BASE}datasets/${route.datasetId}/compare${query({ experiments: route.experimentIds.join(',') })}`;
    case 'annotationQueues':
      return `${BASE}annotation-queues${query({ q: route.search })}`;
    case 'annotationQueueReview':
      return `${BASE}annotation-queues/${route.queueId}/review`;
    case 'prompts':
      return `${BASE}prompts${query({ q: route.search })}`;
    case 'prompt':
      return `${BASE}prompts/${encodeURIComponent(route.name)}${query({ commit: route.commit })}`;
    case 'promptDiff':
      return `${BASE}prompts/${encodeURIComponent(route.name)}/compare${query({ from: route.from, to: route.to })}`;
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

/** The route of a dataset's tab, with the tab's defaults. */
export function datasetTabRoute(datasetId: string, tab: DatasetTab): Route {
  switch (tab) {
    case 'examples':
      return { page: 'dataset', datasetId, asOf: null, split: null, offset: 0 };
    case 'diff':
      return { page: 'datasetDiff', datasetId, from: null, to: null };
    case 'experiments':
      return { page: 'datasetExperiments', datasetId };
  }
}

/** The route of a prompt's tab, with the tab's defaults. */
export function promptTabRoute(name: string, tab: PromptTab): Route {
  return tab === 'prompt' ? { page: 'prompt', name, commit: null } : { page: 'promptDiff', name, from: null, to: null };
}
