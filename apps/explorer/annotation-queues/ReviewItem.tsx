// One run under review: the run (name, type, status, timing, a link to its trace), its inputs and
// outputs (chat messages when they are messages, else each field: text as text, JSON as compact
// JSON that opens), the feedback it has already; beside it the rubric's instructions and a form
// of its items (a choice, a number or text per key, from the key's feedback config), a comment
// and Submit: the feedback (POST /feedback, given in this app) and the item marked done for me.
// Keys: 1–9 choose for the marked item (j/k move the mark), Enter submits, → next, ← previous,
// s skips (marked viewed: it stays in my to-do), d adds the run to a dataset.
import { useEffect, useMemo, useState, type KeyboardEvent as ReactKeyboardEvent, type ReactNode } from 'react';
import { apiCall, ApiError, type Credentials } from '../core/api.ts';
import { asApiError } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { count, dash, latencyOf, seconds, when } from '../core/format.ts';
import { findMessages } from '../core/messages.ts';
import { linkProps } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import { AddToDatasetDialog } from '../datasets/AddToDatasetDialog.tsx';
import { JsonCell } from '../datasets/JsonCell.tsx';
import { Payload } from '../trace/Payload.tsx';
import { runFeedback } from '../trace/traceApi.ts';
import { Status } from '../traces/TracesPage.tsx';
import { type AnnotationQueue, type FeedbackConfig, markItem, type QueueRun } from './queuesApi.ts';
import {
  type Answer,
  answered,
  type Choice,
  feedbackBody,
  problemOf,
  type Scoring,
  scoringOf,
  typedScore,
} from './rubric.ts';

export interface Reviewed {
  runName: string;
  scores: string[];
}

export function ReviewItem({
  credentials,
  queue,
  configs,
  run,
  canPrevious,
  canNext,
  onPrevious,
  onNext,
  onSkipped,
  onSubmitted,
}: {
  credentials: Credentials;
  queue: AnnotationQueue;
  configs: ReadonlyMap<string, FeedbackConfig>;
  run: QueueRun;
  canPrevious: boolean;
  canNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  onSkipped: () => void;
  onSubmitted: (reviewed: Reviewed) => void;
}) {
  const items = queue.rubric_items;
  const scorings = useMemo(
    () => items.map((item) => scoringOf(item, configs.get(item.feedback_key))),
    [items, configs],
  );
  const [answers, setAnswers] = useState<Record<string, Answer>>({});
  const [comment, setComment] = useState('');
  const [active, setActive] = useState(0);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | ApiError | null>(null);
  const [adding, setAdding] = useState(false);
  // One id per key for this run: a submit tried again replaces what a failed one wrote.
  const ids = useMemo(() => new Map(items.map((i) => [i.feedback_key, crypto.randomUUID()])), [items]);

  const answer = (key: string, a: Answer) => setAnswers((all) => ({ ...all, [key]: a }));
  const choose = (index: number, choice: Choice) =>
    answer(items[index]!.feedback_key, { score: choice.score, label: choice.label, text: '' });

  const submit = async () => {
    if (busy) return;
    const problems = items.map((item, i) => problemOf(item, scorings[i]!, answers[item.feedback_key]));
    const first = problems.find((p) => p !== null);
    if (first) return setProblem(first);
    if (scorings.some((s, i) => s.kind !== 'text' && Number.isNaN(answers[items[i]!.feedback_key]?.score)))
      return setProblem('A score must be a number.');
    const given = items.filter((item) => answered(answers[item.feedback_key]));
    if (items.length > 0 && given.length === 0) return setProblem('Score at least one key, or skip the run.');
    setBusy(true);
    setProblem(null);
    try {
      for (const item of given)
        await apiCall(
          credentials,
          'POST',
          '/feedback',
          feedbackBody(item, answers[item.feedback_key]!, run, comment, ids.get(item.feedback_key)!),
        );
      await markItem(credentials, run.queue_run_id, 'completed');
      onSubmitted({
        runName: run.name,
        scores: given.map((item) => `${item.feedback_key} ${shown(answers[item.feedback_key]!)}`),
      });
    } catch (err) {
      setProblem(asApiError(err));
      setBusy(false);
    }
  };

  const skip = async () => {
    if (busy) return;
    setBusy(true);
    try {
      await markItem(credentials, run.queue_run_id, 'viewed');
      onSkipped();
    } catch (err) {
      setProblem(asApiError(err));
      setBusy(false);
    }
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (adding || busy || e.metaKey || e.ctrlKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (target?.closest('input, textarea, select, [role="dialog"]')) return;
      // Enter on a choice submits (the choice was the last thing clicked); on another control, it is that control's.
      if (e.key === 'Enter' && target?.closest('a, button:not(.rubric-choice)')) return;
      const digit = /^[1-9]$/.test(e.key) ? Number(e.key) : null;
      const scoring = scorings[active];
      if (digit !== null && scoring?.kind === 'choices') {
        const choice = scoring.choices[digit - 1];
        if (!choice) return;
        choose(active, choice);
        setActive((a) => Math.min(items.length - 1, a + 1));
      } else if (e.key === 'j') setActive((a) => Math.min(items.length - 1, a + 1));
      else if (e.key === 'k') setActive((a) => Math.max(0, a - 1));
      else if (e.key === 'Enter') void submit();
      else if (e.key === 'ArrowRight' && canNext) onNext();
      else if (e.key === 'ArrowLeft' && canPrevious) onPrevious();
      else if (e.key === 's') void skip();
      else if (e.key === 'd') setAdding(true);
      else return;
      e.preventDefault();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  });

  const enterSubmits = (e: ReactKeyboardEvent) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void submit();
    }
  };

  return (
    <div className="review-layout">
      <RunPanel credentials={credentials} run={run} />
      <form
        className="review-form card"
        data-testid="review-form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {queue.rubric_instructions && (
          <section className="rubric-instructions" data-testid="rubric-instructions">
            <h3>Instructions</h3>
            <p>{queue.rubric_instructions}</p>
          </section>
        )}
        {items.length === 0 ? (
          <p className="muted">This queue has no rubric: mark the run done once you have reviewed it.</p>
        ) : (
          items.map((item, i) => (
            <RubricField
              key={item.feedback_key}
              label={item.feedback_key}
              description={item.description ?? null}
              required={item.is_required === true}
              scoring={scorings[i]!}
              answer={answers[item.feedback_key]}
              active={i === active}
              onFocus={() => setActive(i)}
              onChoose={(c) => {
                setActive(i);
                choose(i, c);
              }}
              onAnswer={(a) => answer(item.feedback_key, a)}
              onEnter={enterSubmits}
            />
          ))
        )}
        {items.length > 0 && (
          <label className="review-comment">
            <span>
              Comment <span className="muted">(sent with each score)</span>
            </span>
            <textarea
              data-testid="review-comment"
              rows={2}
              value={comment}
              placeholder="Enter submits; Shift+Enter for a new line"
              onChange={(e) => setComment(e.target.value)}
              onKeyDown={enterSubmits}
            />
          </label>
        )}
        {problem &&
          (typeof problem === 'string' ? (
            <p className="error" data-testid="review-problem">
              {problem}
            </p>
          ) : (
            <ErrorBox error={problem} />
          ))}
        <p className="muted review-keys" data-testid="review-keys">
          <kbd>1</kbd>–<kbd>9</kbd> choose for the marked key · <kbd>j</kbd>/<kbd>k</kbd> next/previous key ·{' '}
          <kbd>Enter</kbd> submit · <kbd>→</kbd> next run · <kbd>←</kbd> previous run · <kbd>s</kbd> skip
        </p>
        <div className="review-buttons">
          <button type="submit" className="primary" data-testid="review-submit" disabled={busy}>
            {busy ? 'Submitting…' : items.length === 0 ? 'Done' : 'Submit'} <kbd>Enter</kbd>
          </button>
          <button type="button" className="ghost" data-testid="review-skip" disabled={busy} onClick={() => void skip()}>
            Skip <kbd>s</kbd>
          </button>
          <button type="button" className="ghost" data-testid="review-add-to-dataset" onClick={() => setAdding(true)}>
            Add to dataset <kbd>d</kbd>
          </button>
        </div>
      </form>
      {adding && (
        <AddToDatasetDialog
          credentials={credentials}
          runs={[{ id: run.id, inputs: run.inputs, outputs: run.outputs }]}
          defaultDatasetId={queue.default_dataset}
          onCancel={() => setAdding(false)}
        />
      )}
    </div>
  );
}

/** An answer as the note after a submit reads it: the category's label, the score, or the text. */
const shown = (a: Answer): string => a.label ?? (a.score !== null ? String(a.score) : `“${a.text.trim()}”`);

function RubricField({
  label,
  description,
  required,
  scoring,
  answer,
  active,
  onFocus,
  onChoose,
  onAnswer,
  onEnter,
}: {
  label: string;
  description: string | null;
  required: boolean;
  scoring: Scoring;
  answer: Answer | undefined;
  active: boolean;
  onFocus: () => void;
  onChoose: (c: Choice) => void;
  onAnswer: (a: Answer) => void;
  onEnter: (e: ReactKeyboardEvent) => void;
}) {
  const [typed, setTyped] = useState('');
  // A choice sets the number box too (and a number typed that is a choice marks it).
  useEffect(() => {
    if (answer?.score != null && typedScore(typed) !== answer.score) setTyped(String(answer.score));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [answer?.score]);
  const range =
    scoring.kind === 'text' || (scoring.min === null && scoring.max === null)
      ? null
      : `${scoring.min ?? '−∞'} to ${scoring.max ?? '∞'}`;
  return (
    <fieldset
      className={active ? 'rubric-field active' : 'rubric-field'}
      data-testid="rubric-field"
      data-key={label}
      onFocus={onFocus}
      onClick={onFocus}
    >
      <legend>
        <span className="rubric-field-key">{label}</span>
        {required && <span className="required-mark"> required</span>}
        {range && <span className="muted"> · {range}</span>}
      </legend>
      {description && <p className="muted rubric-field-description">{description}</p>}
      {scoring.kind === 'choices' && (
        <div className="rubric-choices" role="group" aria-label={label}>
          {scoring.choices.map((c, i) => {
            const on = answer?.score === c.score && (answer.label ?? null) === c.label;
            return (
              <button
                key={`${c.score}-${c.label}`}
                type="button"
                className={on ? 'rubric-choice on' : 'rubric-choice'}
                data-testid="choice"
                aria-pressed={on}
                title={c.description ?? undefined}
                onClick={() => onChoose(c)}
              >
                {i < 9 && <kbd className="rubric-choice-key">{i + 1}</kbd>}
                <span className="rubric-choice-label">{c.label ?? c.score}</span>
                {c.description && <span className="rubric-choice-description">{c.description}</span>}
              </button>
            );
          })}
        </div>
      )}
      {(scoring.kind === 'number' || (scoring.kind === 'choices' && scoring.numeric)) && (
        <input
          className="rubric-score-box"
          data-testid="score-box"
          type="number"
          step="any"
          aria-label={`${label} score`}
          placeholder={scoring.kind === 'number' ? 'score' : 'or another score'}
          min={scoring.min ?? undefined}
          max={scoring.max ?? undefined}
          value={typed}
          onChange={(e) => {
            setTyped(e.target.value);
            onAnswer({ score: typedScore(e.target.value), label: null, text: '' });
          }}
          onKeyDown={onEnter}
        />
      )}
      {scoring.kind === 'text' && (
        <textarea
          data-testid="text-box"
          rows={2}
          aria-label={label}
          placeholder="Your answer (Enter submits; Shift+Enter for a new line)"
          value={answer?.text ?? ''}
          onChange={(e) => onAnswer({ score: null, label: null, text: e.target.value })}
          onKeyDown={onEnter}
        />
      )}
    </fieldset>
  );
}

function RunPanel({ credentials, run }: { credentials: Credentials; run: QueueRun }) {
  const feedback = useLoad(() => runFeedback(credentials, run.id), [credentials, run.id]);
  return (
    <article className="review-run card" data-testid="review-run" data-run-id={run.id}>
      <header className="review-run-head">
        <h2 data-testid="review-run-name">{run.name}</h2>
        <Status status={run.status} />
        <span className={`type-badge type-${run.run_type}`}>{run.run_type}</span>
        {run.session_id && (
          <a
            className="review-trace-link"
            data-testid="review-trace-link"
            {...linkProps({ page: 'trace', projectId: run.session_id, traceId: run.trace_id, runId: run.id })}
          >
            Open in its trace ↗
          </a>
        )}
      </header>
      <p className="muted review-run-facts">
        {when(run.start_time)} · {seconds(latencyOf(run.start_time, run.end_time))}
        {run.total_tokens ? ` · ${count(run.total_tokens)} tokens` : ''} · added to the queue {when(run.added_at)}
      </p>
      {run.error && <pre className="error-text">{run.error}</pre>}
      <Part title="Inputs">
        <Io value={run.inputs} testId="review-inputs" />
      </Part>
      <Part title="Outputs">
        <Io value={run.outputs} testId="review-outputs" />
      </Part>
      <Part title="Feedback so far">
        {feedback.state === 'error' && <ErrorBox error={feedback.error} />}
        {feedback.state === 'done' &&
          (feedback.value.length === 0 ? (
            <p className="muted" data-testid="review-feedback-none">
              None yet.
            </p>
          ) : (
            <ul className="review-feedback" data-testid="review-feedback">
              {feedback.value.map((f) => (
                <li key={f.id}>
                  <span className="score">
                    <span className="score-key">{f.key}</span>
                    {f.score ?? (typeof f.value === 'string' ? f.value : dash)}
                  </span>
                  {f.comment && <span className="muted"> {f.comment}</span>}
                </li>
              ))}
            </ul>
          ))}
      </Part>
    </article>
  );
}

const Part = ({ title, children }: { title: string; children: ReactNode }) => (
  <section className="block">
    <h3>{title}</h3>
    {children}
  </section>
);

/** Inputs or outputs: chat messages as messages; else each field, text as text and JSON as compact JSON that opens. */
function Io({ value, testId }: { value: unknown; testId: string }) {
  if (findMessages(value)) return <Payload value={value} testId={testId} />;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length === 0)
    return <JsonCell value={value} testId={testId} />;
  return (
    <dl className="io-fields" data-testid={testId}>
      {Object.entries(value).map(([k, v]) => (
        <div key={k} data-testid="io-field" data-field={k}>
          <dt>{k}</dt>
          <dd>{typeof v === 'string' ? <span className="io-text">{v}</span> : <JsonCell value={v} />}</dd>
        </div>
      ))}
    </dl>
  );
}
