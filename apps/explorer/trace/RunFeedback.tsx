// A run's feedback in its detail: each item (key, score, value, comment, when) with Edit (score,
// value, comment, correction: PATCH /feedback/{id}, only what changed) and Delete (after an
// inline "are you sure?": DELETE /feedback/{id}), and a form to add some (POST /feedback). The list
// is read from a read model a moment behind the writes, so what was added, changed or deleted here
// shows so at once, whatever the next read says first.
import { useState, type FormEvent } from 'react';
import { ApiError, type Credentials } from '../core/api.ts';
import { asApiError, useSubmit } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { ago, dash, when } from '../core/format.ts';
import { useLoad } from '../core/useLoad.ts';
import { changesOf, draftOf, editableText, type FeedbackDraft } from './feedbackEdit.ts';
import { addFeedback, deleteFeedback, type Feedback, runFeedback, updateFeedback } from './traceApi.ts';

export function RunFeedback({
  credentials,
  runId,
  traceId,
}: {
  credentials: Credentials;
  runId: string;
  traceId: string;
}) {
  const [added, setAdded] = useState<Feedback[]>([]);
  const [edited, setEdited] = useState<ReadonlyMap<string, Feedback>>(new Map());
  const [deleted, setDeleted] = useState<ReadonlySet<string>>(new Set());
  const load = useLoad(() => runFeedback(credentials, runId).finally(() => setAdded([])), [credentials, runId]);
  const read = load.state === 'done' ? load.value : [];
  const items = [...added.filter((a) => !read.some((f) => f.id === a.id)), ...read]
    .filter((f) => !deleted.has(f.id))
    .map((f) => edited.get(f.id) ?? f);
  return (
    <section className="block">
      <h3>Feedback</h3>
      {load.state === 'loading' && <p className="muted">Loading feedback…</p>}
      {load.state === 'error' && <ErrorBox error={load.error} />}
      {load.state === 'done' && items.length === 0 && (
        <p className="muted">
          No feedback on this run yet: add some below, or send it with the client’s createFeedback.
        </p>
      )}
      {items.length > 0 && (
        <table className="table feedback-table" data-testid="feedback">
          <thead>
            <tr>
              <th>Key</th>
              <th className="num">Score</th>
              <th>Value</th>
              <th>Comment</th>
              <th>When</th>
              <th aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {items.map((f) => (
              <FeedbackRow
                key={f.id}
                credentials={credentials}
                feedback={f}
                onEdited={(next) => setEdited((m) => new Map(m).set(next.id, next))}
                onDeleted={() => setDeleted((s) => new Set(s).add(f.id))}
              />
            ))}
          </tbody>
        </table>
      )}
      <FeedbackForm
        credentials={credentials}
        runId={runId}
        traceId={traceId}
        onAdded={(f) => setAdded((list) => [f, ...list])}
      />
    </section>
  );
}

function FeedbackRow({
  credentials,
  feedback: f,
  onEdited,
  onDeleted,
}: {
  credentials: Credentials;
  feedback: Feedback;
  onEdited: (f: Feedback) => void;
  onDeleted: () => void;
}) {
  const [mode, setMode] = useState<'view' | 'edit' | 'delete'>('view');
  const { busy, error, run } = useSubmit();
  const remove = async () => {
    await run(async () => {
      await deleteFeedback(credentials, f.id);
      onDeleted();
    });
  };
  if (mode === 'edit')
    return (
      <tr data-testid="feedback-row" data-feedback-id={f.id} className="feedback-editing">
        <td colSpan={6}>
          <FeedbackEditor
            credentials={credentials}
            feedback={f}
            onSaved={(next) => {
              onEdited(next);
              setMode('view');
            }}
            onCancel={() => setMode('view')}
          />
        </td>
      </tr>
    );
  return (
    <tr data-testid="feedback-row" data-feedback-id={f.id}>
      <td className="feedback-key">{f.key}</td>
      <td className="num feedback-score">{f.score ?? dash}</td>
      <td className="feedback-value">{f.value == null ? dash : editableText(f.value)}</td>
      <td className="feedback-comment">{f.comment ?? dash}</td>
      <td className="muted feedback-when" title={when(f.created_at)}>
        {ago(f.created_at)}
      </td>
      <td className="row-actions feedback-actions">
        {mode === 'delete' ? (
          <span className="confirm" data-testid="feedback-delete-confirm">
            Delete?
            <button
              type="button"
              className="link-button danger-link"
              data-testid="feedback-delete-yes"
              disabled={busy}
              onClick={() => void remove()}
            >
              {busy ? 'Deleting…' : 'Yes'}
            </button>
            <button type="button" className="link-button" onClick={() => setMode('view')} disabled={busy}>
              Keep
            </button>
          </span>
        ) : (
          <>
            <button type="button" className="link-button" data-testid="feedback-edit" onClick={() => setMode('edit')}>
              Edit
            </button>
            <button
              type="button"
              className="link-button danger-link"
              data-testid="feedback-delete"
              onClick={() => setMode('delete')}
            >
              Delete
            </button>
          </>
        )}
        {error && <ErrorBox error={error} />}
      </td>
    </tr>
  );
}

function FeedbackEditor({
  credentials,
  feedback: f,
  onSaved,
  onCancel,
}: {
  credentials: Credentials;
  feedback: Feedback;
  onSaved: (f: Feedback) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<FeedbackDraft>(() => draftOf(f));
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | ApiError | null>(null);
  const field = (name: keyof FeedbackDraft) => ({
    value: draft[name],
    onChange: (e: { target: { value: string } }) => setDraft({ ...draft, [name]: e.target.value }),
  });
  const save = async (e: FormEvent) => {
    e.preventDefault();
    const edit = changesOf(f, draft);
    if ('problem' in edit) return setProblem(edit.problem);
    if (Object.keys(edit.changes).length === 0) return onCancel();
    setBusy(true);
    setProblem(null);
    try {
      onSaved({ ...f, ...edit.changes, ...(await updateFeedback(credentials, f.id, edit.changes)) });
    } catch (err) {
      setProblem(asApiError(err));
      setBusy(false);
    }
  };
  return (
    <form className="feedback-editor" data-testid="feedback-editor" onSubmit={(e) => void save(e)}>
      <div className="feedback-editor-head">
        <strong>{f.key}</strong>
        <span className="muted">value and correction: JSON, or text</span>
      </div>
      <label>
        Score
        <input data-testid="edit-score" inputMode="decimal" {...field('score')} />
      </label>
      <label>
        Value
        <input data-testid="edit-value" {...field('value')} />
      </label>
      <label className="wide">
        Comment
        <input data-testid="edit-comment" {...field('comment')} autoFocus />
      </label>
      <label className="wide">
        Correction
        <input data-testid="edit-correction" placeholder="what the run should have answered" {...field('correction')} />
      </label>
      {problem &&
        (typeof problem === 'string' ? (
          <p className="error" data-testid="edit-problem">
            {problem}
          </p>
        ) : (
          <ErrorBox error={problem} />
        ))}
      <div className="feedback-editor-buttons">
        <button type="button" className="ghost small" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className="primary small" data-testid="edit-save" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

function FeedbackForm({
  credentials,
  runId,
  traceId,
  onAdded,
}: {
  credentials: Credentials;
  runId: string;
  traceId: string;
  onAdded: (f: Feedback) => void;
}) {
  const [key, setKey] = useState('');
  const [score, setScore] = useState('');
  const [comment, setComment] = useState('');
  const [problem, setProblem] = useState<string | ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const numeric = score.trim() === '' ? null : Number(score);
    if (!key.trim()) return setProblem('Give the feedback a key (e.g. correctness).');
    if (numeric !== null && !Number.isFinite(numeric)) return setProblem(`The score must be a number; got "${score}".`);
    setBusy(true);
    setProblem(null);
    try {
      onAdded(
        await addFeedback(credentials, {
          run_id: runId,
          trace_id: traceId,
          key: key.trim(),
          score: numeric,
          comment: comment.trim() || null,
        }),
      );
      setKey('');
      setScore('');
      setComment('');
    } catch (err) {
      setProblem(err instanceof ApiError ? err : new ApiError(0, 'ERROR', String(err)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="feedback-form" onSubmit={(e) => void submit(e)} data-testid="feedback-form">
      <input
        placeholder="key, e.g. correctness"
        value={key}
        onChange={(e) => setKey(e.target.value)}
        data-testid="feedback-key"
        aria-label="Feedback key"
      />
      <input
        placeholder="score"
        value={score}
        onChange={(e) => setScore(e.target.value)}
        data-testid="feedback-score"
        aria-label="Score"
        inputMode="decimal"
      />
      <input
        placeholder="comment"
        value={comment}
        onChange={(e) => setComment(e.target.value)}
        data-testid="feedback-comment"
        aria-label="Comment"
        className="grow"
      />
      <button type="submit" className="primary" disabled={busy} data-testid="feedback-submit">
        Add feedback
      </button>
      {problem &&
        (typeof problem === 'string' ? (
          <p className="error" data-testid="feedback-problem">
            {problem}
          </p>
        ) : (
          <ErrorBox error={problem} />
        ))}
    </form>
  );
}
