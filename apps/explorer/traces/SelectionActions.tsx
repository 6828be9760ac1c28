// What the traces table's checked rows can be sent to: a dataset (an example of each trace's root
// run, from its own inputs and outputs) or an annotation queue (its root runs, to review).
import { useState } from 'react';
import { SendToQueueDialog } from '../annotation-queues/SendToQueueDialog.tsx';
import type { Credentials } from '../core/api.ts';
import { AddToDatasetDialog } from '../datasets/AddToDatasetDialog.tsx';

export function SelectionActions({ credentials, selected }: { credentials: Credentials; selected: string[] }) {
  const [dialog, setDialog] = useState<'dataset' | 'queue' | null>(null);
  // A row's id is its trace's root run.
  const none = selected.length === 0;
  const hint = none ? 'Check traces first' : undefined;
  return (
    <div className="selection-actions" data-testid="selection-actions">
      <button
        type="button"
        className="ghost"
        data-testid="selected-to-dataset"
        disabled={none}
        title={hint}
        onClick={() => setDialog('dataset')}
      >
        Add to dataset
      </button>
      <button
        type="button"
        className="ghost"
        data-testid="selected-to-queue"
        disabled={none}
        title={hint}
        onClick={() => setDialog('queue')}
      >
        Send to annotation queue
      </button>
      {dialog === 'dataset' && (
        <AddToDatasetDialog
          credentials={credentials}
          runs={selected.map((id) => ({ id }))}
          onCancel={() => setDialog(null)}
        />
      )}
      {dialog === 'queue' && (
        <SendToQueueDialog credentials={credentials} runIds={selected} onCancel={() => setDialog(null)} />
      )}
    </div>
  );
}
