// The datasets page's calls: a page of the workspace's datasets (searched by part of the name),
// and create, edit, delete.
import { apiCall, type Credentials } from '../core/api.ts';

export type DataType = 'kv' | 'llm' | 'chat';

/** A dataset as GET /datasets answers it (docs/evaluation.md). */
export interface Dataset {
  id: string;
  name: string;
  description: string | null;
  data_type: DataType;
  metadata: Record<string, unknown> | null;
  created_at: string;
  modified_at: string;
  example_count: number;
  session_count: number;
  last_session_start_time: string | null;
}

/** Datasets are listed this many at a time (the API's page limit). */
export const DATASETS_PAGE = 100;

export function listDatasets(c: Credentials, offset: number, search: string): Promise<Dataset[]> {
  const params = new URLSearchParams({ limit: String(DATASETS_PAGE), offset: String(offset) });
  if (search) params.set('name_contains', search);
  return apiCall<Dataset[]>(c, 'GET', `/datasets?${params}`);
}

export const createDataset = (c: Credentials, d: { name: string; description: string | null; data_type: DataType }) =>
  apiCall<Dataset>(c, 'POST', '/datasets', d);
export const editDataset = (c: Credentials, id: string, d: { name: string; description: string }) =>
  apiCall<Dataset>(c, 'PATCH', `/datasets/${id}`, d);
export const deleteDataset = (c: Credentials, id: string) => apiCall<null>(c, 'DELETE', `/datasets/${id}`);
