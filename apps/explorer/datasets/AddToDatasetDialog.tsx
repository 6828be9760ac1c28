// "Add to dataset" for runs (a run's detail, the traces table's checked traces, the reviewer's
// page): pick a dataset (searched by name; a queue's default dataset chosen first) and make an
// example of each run, with its inputs as the example's inputs and its outputs as the reference
// outputs, naming the run as its source. Once added, the dialog says so and links to the dataset.
import { useState, type FormEvent } from 'react';
import type { Credentials } from '../core/api.ts';
import { Buttons, Dialog, useSubmit } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { count } from '../core/format.ts';
import { datasetTabRoute, linkProps } from '../core/route.ts';
import { DatasetPicker, useDatasetChoice } from './DatasetPicker.tsx';
import type { Dataset } from './datasetsApi.ts';
import { addRunsToDataset, type SourceRun } from './examplesApi.ts';

export function AddToDatasetDialog({
  credentials,
  runs,
  defaultDatasetId = null,
  onCancel,
}: {
  credentials: Credentials;
  runs: readonly SourceRun[];
  /** Chosen at first (a queue's default dataset). */
  defaultDatasetId?: string | null;
  onCancel: () => void;
}) {
  const choice = useDatasetChoice(credentials, defaultDatasetId);
  const { busy, error, run } = useSubmit();
  const [added, setAdded] = useState<Dataset | null>(null);
  const { target } = choice;
  const what = runs.length === 1 ? 'the run' : `${count(runs.length)} runs`;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!target) return;
    await run(async () => {
      await addRunsToDataset(credentials, target.id, runs);
      setAdded(target);
    });
  };

  if (added)
    return (
      <Dialog title="Added to dataset" onCancel={onCancel}>
        <p data-testid="added-to-dataset">
          Added {runs.length === 1 ? 'an example' : `${count(runs.length)} examples`} to{' '}
          <a data-testid="added-dataset-link" {...linkProps(datasetTabRoute(added.id, 'examples'))}>
            {added.name}
          </a>
          , from {runs.length === 1 ? 'the run’s' : 'the runs’'} inputs and outputs.
        </p>
        <div className="dialog-buttons">
          <button type="button" className="primary" data-testid="dialog-close" onClick={onCancel} autoFocus>
            Close
          </button>
        </div>
      </Dialog>
    );
  return (
    <Dialog title="Add to dataset" onCancel={onCancel}>
      <form onSubmit={submit}>
        <p className="muted">
          An example of {what}: {runs.length === 1 ? 'its' : 'each one’s'} inputs as the inputs, outputs as the
          reference outputs, the run as its source.
        </p>
        <DatasetPicker choice={choice} note={(d) => (d.id === defaultDatasetId ? ' (the queue’s dataset)' : '')} />
        {error && <ErrorBox error={error} />}
        <Buttons onCancel={onCancel}>
          <button type="submit" className="primary" data-testid="dialog-confirm" disabled={busy || !target}>
            {busy ? 'Adding…' : target ? `Add to ${target.name}` : 'Add'}
          </button>
        </Buttons>
      </form>
    </Dialog>
  );
}
