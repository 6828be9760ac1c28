// The datasets page's calls: a page of the workspace's datasets (searched by part of the name),
// one dataset, and create (empty, or from a CSV file), edit, delete.
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
export const getDataset = (c: Credentials, id: string) => apiCall<Dataset>(c, 'GET', `/datasets/${id}`);

/** A dataset from a CSV file (POST /datasets/upload): a row an example, the named columns its inputs and outputs. */
export function uploadCsv(
  c: Credentials,
  upload: { file: File; name: string; inputKeys: string[]; outputKeys: string[] },
): Promise<Dataset> {
  const form = new FormData();
  form.append('file', upload.file, upload.file.name);
  for (const key of upload.inputKeys) form.append('input_keys', key);
  for (const key of upload.outputKeys) form.append('output_keys', key);
  form.append('name', upload.name);
  return apiCall<Dataset>(c, 'POST', '/datasets/upload', form);
}
