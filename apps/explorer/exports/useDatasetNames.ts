// The names of the datasets that examples exports write, read once for each set of them (a
// deleted dataset keeps its id as its name).
import type { Credentials } from '../core/api.ts';
import { useLoad } from '../core/useLoad.ts';
import { listDatasetNames, type BulkExport } from './exportsApi.ts';

export function useDatasetNames(credentials: Credentials, exports: readonly BulkExport[]): (id: string) => string {
  const ids = [...new Set(exports.flatMap((e) => (e.dataset_id ? [e.dataset_id] : [])))].sort();
  const names = useLoad(
    () => listDatasetNames(credentials, ids),
    [credentials.apiKey, credentials.workspaceId, ids.join(',')],
  );
  const found = names.state === 'done' ? names.value : [];
  return (id) => found.find((d) => d.id === id)?.name ?? (names.state === 'loading' ? '…' : id);
}
