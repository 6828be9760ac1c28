// Picking one of the workspace's datasets: searched by part of its name (a hundred listed at a
// time), a preset dataset (a queue's, the one an export names) read by id when it is not listed,
// and the first listed chosen until another is. For "Add to dataset" and the new-export form.
import { useState } from 'react';
import type { ApiError, Credentials } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { useLoad } from '../core/useLoad.ts';
import { useSettledSearch } from '../core/usePagedLoad.ts';
import { type Dataset, getDataset, listDatasets } from './datasetsApi.ts';

export interface DatasetChoice {
  search: string;
  setSearch: (search: string) => void;
  /** The search as last sent (a quarter second after typing stops). */
  query: string;
  /** The datasets to choose from: those listed, the preset first when it is not among them. */
  options: Dataset[];
  loaded: boolean;
  /** Why the datasets could not be listed. */
  error: ApiError | null;
  /** The dataset chosen (null while none is listed). */
  target: Dataset | null;
  choose: (id: string) => void;
}

export function useDatasetChoice(credentials: Credentials, presetId: string | null): DatasetChoice {
  const [search, setSearch] = useState('');
  const [chosen, choose] = useState(presetId ?? '');
  const query = useSettledSearch(search);
  const who = [credentials.apiKey, credentials.workspaceId];
  const datasets = useLoad(() => listDatasets(credentials, 0, query), [...who, query]);
  // The preset dataset by id, when it is not among the datasets listed.
  const preset = useLoad(
    () => (presetId ? getDataset(credentials, presetId) : Promise.resolve(null)),
    [...who, presetId],
  );
  const options = datasets.state === 'done' ? [...datasets.value] : [];
  if (preset.state === 'done' && preset.value && !options.some((d) => d.id === preset.value!.id))
    options.unshift(preset.value);
  // Until one of those listed is chosen, the first is (none while the preset is still being read).
  const presetPending = presetId !== null && chosen === presetId && preset.state === 'loading';
  const target = options.find((d) => d.id === chosen) ?? (presetPending ? null : (options[0] ?? null));
  return {
    search,
    setSearch,
    query,
    options,
    loaded: datasets.state === 'done',
    error: datasets.state === 'error' ? datasets.error : null,
    target,
    choose,
  };
}

/** The search box and the list of a DatasetChoice; `note` adds words after a dataset's name. */
export function DatasetPicker({
  choice,
  label = 'Dataset',
  note,
}: {
  choice: DatasetChoice;
  label?: string;
  note?: (d: Dataset) => string;
}) {
  const { options, query } = choice;
  return (
    <>
      <label>
        {label}
        <input
          type="search"
          data-testid="dataset-picker-search"
          placeholder="Search datasets by name"
          value={choice.search}
          onChange={(e) => choice.setSearch(e.target.value)}
        />
      </label>
      <select
        data-testid="dataset-picker"
        aria-label={label}
        size={Math.min(6, Math.max(2, options.length))}
        value={choice.target?.id ?? ''}
        onChange={(e) => choice.choose(e.target.value)}
      >
        {options.map((d) => (
          <option key={d.id} value={d.id}>
            {d.name}
            {note?.(d) ?? ''}
          </option>
        ))}
      </select>
      {choice.loaded && options.length === 0 && (
        <p className="muted" data-testid="dataset-picker-empty">
          {query ? `No dataset name contains “${query}”.` : 'No datasets yet: create one on the Datasets page.'}
        </p>
      )}
      {choice.error && <ErrorBox error={choice.error} />}
    </>
  );
}
