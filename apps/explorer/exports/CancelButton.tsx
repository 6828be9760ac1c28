// Cancel an export, after a second press: it is final (finished runs and their files stay).
import { useState } from 'react';
import type { ApiError, Credentials } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { cancelExport, FINAL_STATUSES, type BulkExport } from './exportsApi.ts';

export function CancelButton({
  credentials,
  e,
  onCancelled,
}: {
  credentials: Credentials;
  e: BulkExport;
  onCancelled: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  if (FINAL_STATUSES.has(e.status)) return null;
  if (!confirming)
    return (
      <button type="button" className="ghost small" data-testid="cancel-export" onClick={() => setConfirming(true)}>
        Cancel
      </button>
    );
  return (
    <span className="confirm">
      Cancel for good?{' '}
      <button
        type="button"
        className="danger small"
        data-testid="confirm-cancel-export"
        onClick={() =>
          cancelExport(credentials, e.id).then(
            () => {
              setConfirming(false);
              onCancelled();
            },
            (err: ApiError) => setError(err),
          )
        }
      >
        Cancel export
      </button>{' '}
      <button type="button" className="ghost small" onClick={() => setConfirming(false)}>
        Keep
      </button>
      {error && <ErrorBox error={error} />}
    </span>
  );
}
