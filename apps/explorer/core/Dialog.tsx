// A modal dialog of the explorer's pages (projects, datasets): a titled card over the page, with
// Cancel and the dialog's own action; Escape or a click outside cancels.
import { type FormEvent, type ReactNode, useCallback, useEffect, useState } from 'react';
import { ApiError } from './api.ts';
import { ErrorBox } from './ErrorBox.tsx';

/** What a dialog shows of a failed call: the API's error, or the thrown value in words. */
export const asApiError = (err: unknown): ApiError =>
  err instanceof ApiError ? err : new ApiError(0, 'ERROR', String(err));

/**
 * A form's call: `busy` while it runs (its button disabled), its failure kept as an ApiError for
 * the form to show, cleared when it is sent again. What follows success (closing the dialog, as a
 * rule) is the call's own last step.
 */
export function useSubmit(): {
  busy: boolean;
  error: ApiError | null;
  run: (call: () => Promise<unknown>) => Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = useCallback(async (call: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await call();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}

export function Buttons({ onCancel, children }: { onCancel: () => void; children: ReactNode }) {
  return (
    <div className="dialog-buttons">
      <button type="button" className="ghost" data-testid="dialog-cancel" onClick={onCancel}>
        Cancel
      </button>
      {children}
    </div>
  );
}

/** A modal over the page: Escape or a click outside cancels. `wide` for a form of several parts (a rubric). */
export function Dialog({
  title,
  onCancel,
  wide,
  children,
}: {
  title: string;
  onCancel: () => void;
  wide?: boolean;
  children: ReactNode;
}) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onCancel();
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [onCancel]);
  return (
    <div className="dialog-backdrop" onMouseDown={onCancel}>
      <div
        className={wide ? 'dialog card wide' : 'dialog card'}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        data-testid="dialog"
        onMouseDown={(e) => e.stopPropagation()}
      >
        <h3>{title}</h3>
        {children}
      </div>
    </div>
  );
}

/**
 * A deletion asked for in words: the question (naming what goes and what stays), then the call;
 * a refusal of the API stays in the dialog, the button free again to try once more.
 */
export function ConfirmDeleteDialog({
  title,
  action,
  onDelete,
  onDone,
  onCancel,
  children,
}: {
  /** "Delete dataset"; the button says it too. */
  title: string;
  /** What the button says while the call is under way is "Deleting…"; `action` when idle. */
  action?: string;
  onDelete: () => Promise<unknown>;
  onDone: () => void;
  onCancel: () => void;
  /** The question. */
  children: ReactNode;
}) {
  const { busy, error, run } = useSubmit();
  const remove = async (e: FormEvent) => {
    e.preventDefault();
    await run(async () => {
      await onDelete();
      onDone();
    });
  };
  return (
    <Dialog title={title} onCancel={onCancel}>
      <form onSubmit={remove}>
        <p data-testid="delete-question">{children}</p>
        {error && <ErrorBox error={error} />}
        <Buttons onCancel={onCancel}>
          <button type="submit" className="danger" data-testid="dialog-confirm" disabled={busy}>
            {busy ? 'Deleting…' : (action ?? title)}
          </button>
        </Buttons>
      </form>
    </Dialog>
  );
}
