// The annotation queues page's dialogs: create or edit a queue (name, description, the rubric's
// instructions and items, the dataset its reviewers add runs to, how many reviewers each run
// needs) and delete one after a confirmation naming it. A rubric item is a feedback key (those
// with a feedback config offered, each with what its config takes), a description, what its
// scores mean, and whether a reviewer must score it. A refusal of the API stays in the dialog.
import { useState, type FormEvent } from 'react';
import type { ApiError, Credentials } from '../core/api.ts';
import { asApiError, Buttons, ConfirmDeleteDialog, Dialog } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { counted } from '../core/format.ts';
import { useLoad } from '../core/useLoad.ts';
import { listDatasets } from '../datasets/datasetsApi.ts';
import {
  type AnnotationQueue,
  createQueue,
  deleteQueue,
  type FeedbackConfig,
  type FeedbackConfigEntry,
  listFeedbackConfigs,
  type RubricItem,
  updateQueue,
} from './queuesApi.ts';
import { descriptionRows, descriptionsOf, scoringOf } from './rubric.ts';

export type QueueDialogState =
  | { kind: 'create' }
  | { kind: 'edit'; queue: AnnotationQueue }
  | { kind: 'delete'; queue: AnnotationQueue };

/** A rubric item as the dialog edits it; fields it does not edit (value_descriptions, …) are kept. */
interface ItemDraft {
  key: string;
  description: string;
  scores: Array<{ score: string; description: string }>;
  required: boolean;
  rest: Omit<RubricItem, 'feedback_key' | 'description' | 'score_descriptions' | 'is_required'>;
}

const draftOf = ({ feedback_key, description, score_descriptions, is_required, ...rest }: RubricItem): ItemDraft => ({
  key: feedback_key,
  description: description ?? '',
  scores: descriptionRows(score_descriptions),
  required: is_required === true,
  rest,
});

const itemOf = (d: ItemDraft): RubricItem => ({
  ...d.rest,
  feedback_key: d.key.trim(),
  description: d.description.trim() || null,
  score_descriptions: descriptionsOf(d.scores),
  is_required: d.required,
});

const emptyItem = (): ItemDraft => ({ key: '', description: '', scores: [], required: false, rest: {} });

/** What a key's config takes, in a few words. */
export function configSummary(config: FeedbackConfig | undefined): string {
  if (!config) return 'no feedback config: any score';
  if (config.type === 'freeform') return 'freeform: text';
  if (config.type === 'categorical')
    return `categorical: ${config.categories.map((c) => c.label ?? String(c.value)).join(', ')}`;
  const { min, max } = config;
  if (min != null && max != null) return `continuous: ${min} to ${max}`;
  if (min != null) return `continuous: at least ${min}`;
  if (max != null) return `continuous: at most ${max}`;
  return 'continuous: any number';
}

export function QueueDialog({
  credentials,
  dialog,
  onDone,
  onCancel,
}: {
  credentials: Credentials;
  dialog: QueueDialogState;
  onDone: () => void;
  onCancel: () => void;
}) {
  if (dialog.kind === 'delete')
    return <DeleteQueueDialog credentials={credentials} queue={dialog.queue} onDone={onDone} onCancel={onCancel} />;
  return <QueueForm credentials={credentials} dialog={dialog} onDone={onDone} onCancel={onCancel} />;
}

function DeleteQueueDialog({
  credentials,
  queue: q,
  onDone,
  onCancel,
}: {
  credentials: Credentials;
  queue: AnnotationQueue;
  onDone: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDeleteDialog
      title="Delete annotation queue"
      action="Delete queue"
      onDelete={() => deleteQueue(credentials, q.id)}
      onDone={onDone}
      onCancel={onCancel}
    >
      Delete the annotation queue <strong>{q.name}</strong>
      {q.total_runs ? ` and its ${counted(q.total_runs, 'run')} to review` : ''}? The runs and the feedback given in it
      stay. This cannot be undone.
    </ConfirmDeleteDialog>
  );
}

function QueueForm({
  credentials,
  dialog,
  onDone,
  onCancel,
}: {
  credentials: Credentials;
  dialog: Exclude<QueueDialogState, { kind: 'delete' }>;
  onDone: () => void;
  onCancel: () => void;
}) {
  const current = dialog.kind === 'edit' ? dialog.queue : null;
  const [name, setName] = useState(current?.name ?? '');
  const [description, setDescription] = useState(current?.description ?? '');
  const [instructions, setInstructions] = useState(current?.rubric_instructions ?? '');
  const [items, setItems] = useState<ItemDraft[]>(() => current?.rubric_items.map(draftOf) ?? []);
  const [dataset, setDataset] = useState(current?.default_dataset ?? '');
  const [reviewers, setReviewers] = useState(String(current?.num_reviewers_per_item ?? 1));
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | ApiError | null>(null);
  const who = [credentials.apiKey, credentials.workspaceId];
  const configs = useLoad(() => listFeedbackConfigs(credentials), who);
  const datasets = useLoad(() => listDatasets(credentials, 0, ''), who);
  const configOf = (key: string): FeedbackConfigEntry | undefined =>
    configs.state === 'done' ? configs.value.find((c) => c.feedback_key === key.trim()) : undefined;
  const change = (i: number, patch: Partial<ItemDraft>) =>
    setItems((list) => list.map((d, j) => (j === i ? { ...d, ...patch } : d)));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const keys = items.map((d) => d.key.trim());
    const reviewersPerRun = Number(reviewers);
    if (keys.some((k) => !k)) return setProblem('Give every rubric item a feedback key, or remove it.');
    const twice = keys.find((k, i) => keys.indexOf(k) !== i);
    if (twice) return setProblem(`The feedback key “${twice}” is in the rubric twice.`);
    if (!Number.isInteger(reviewersPerRun) || reviewersPerRun < 1 || reviewersPerRun > 100)
      return setProblem('Reviewers per run must be a whole number from 1 to 100.');
    setBusy(true);
    setProblem(null);
    const fields = {
      name: name.trim(),
      description: description.trim() || null,
      rubric_instructions: instructions.trim() || null,
      rubric_items: items.map(itemOf),
      default_dataset: dataset || null,
      num_reviewers_per_item: reviewersPerRun,
    };
    try {
      if (current) await updateQueue(credentials, current.id, fields);
      else await createQueue(credentials, fields);
      onDone();
    } catch (err) {
      setProblem(asApiError(err));
      setBusy(false);
    }
  };

  const datasetList = datasets.state === 'done' ? datasets.value : [];
  return (
    <Dialog title={current ? `Edit ${current.name}` : 'New annotation queue'} onCancel={onCancel} wide>
      <form onSubmit={submit} className="queue-form">
        <label>
          Name
          <input
            data-testid="queue-name-input"
            value={name}
            onChange={(e) => setName(e.target.value)}
            autoFocus
            maxLength={1000}
          />
        </label>
        <label>
          <span>
            Description <span className="muted">(optional)</span>
          </span>
          <textarea
            data-testid="queue-description-input"
            rows={2}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        </label>
        <label>
          <span>
            Instructions for reviewers <span className="muted">(shown above the rubric)</span>
          </span>
          <textarea
            data-testid="queue-instructions-input"
            rows={3}
            value={instructions}
            onChange={(e) => setInstructions(e.target.value)}
          />
        </label>
        <fieldset className="rubric-editor">
          <legend>Rubric</legend>
          {items.length === 0 && (
            <p className="muted">No items: reviewers only mark runs done. Add the feedback keys they should score.</p>
          )}
          <datalist id="feedback-keys">
            {configs.state === 'done' &&
              configs.value.map((c) => <option key={c.feedback_key} value={c.feedback_key} />)}
          </datalist>
          {items.map((d, i) => (
            <RubricItemEditor
              key={i}
              index={i}
              draft={d}
              config={configOf(d.key)?.feedback_config}
              onChange={(patch) => change(i, patch)}
              onRemove={() => setItems((list) => list.filter((_, j) => j !== i))}
            />
          ))}
          <button
            type="button"
            className="ghost small"
            data-testid="rubric-add"
            onClick={() => setItems((list) => [...list, emptyItem()])}
          >
            + Add a feedback key
          </button>
          {configs.state === 'error' && <ErrorBox error={configs.error} />}
        </fieldset>
        <div className="queue-form-row">
          <label>
            Default dataset <span className="muted">(reviewers’ “Add to dataset”)</span>
            <select data-testid="queue-dataset-input" value={dataset} onChange={(e) => setDataset(e.target.value)}>
              <option value="">None</option>
              {dataset && !datasetList.some((d) => d.id === dataset) && <option value={dataset}>{dataset}</option>}
              {datasetList.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </select>
          </label>
          <label className="reviewers-field">
            Reviewers per run
            <input
              data-testid="queue-reviewers-input"
              type="number"
              min={1}
              max={100}
              value={reviewers}
              onChange={(e) => setReviewers(e.target.value)}
            />
          </label>
        </div>
        {problem &&
          (typeof problem === 'string' ? (
            <p className="error" data-testid="queue-problem">
              {problem}
            </p>
          ) : (
            <ErrorBox error={problem} />
          ))}
        <Buttons onCancel={onCancel}>
          <button type="submit" className="primary" data-testid="dialog-confirm" disabled={busy || !name.trim()}>
            {current ? (busy ? 'Saving…' : 'Save') : busy ? 'Creating…' : 'Create'}
          </button>
        </Buttons>
      </form>
    </Dialog>
  );
}

function RubricItemEditor({
  index,
  draft,
  config,
  onChange,
  onRemove,
}: {
  index: number;
  draft: ItemDraft;
  config: FeedbackConfig | undefined;
  onChange: (patch: Partial<ItemDraft>) => void;
  onRemove: () => void;
}) {
  const scoring = scoringOf({ feedback_key: draft.key }, config);
  const offered = scoring.kind === 'choices' ? scoring.choices : [];
  const labelOf = (score: string) => offered.find((c) => String(c.score) === score.trim())?.label ?? null;
  const setScore = (j: number, patch: Partial<ItemDraft['scores'][number]>) =>
    onChange({ scores: draft.scores.map((s, k) => (k === j ? { ...s, ...patch } : s)) });
  return (
    <div className="rubric-item" data-testid="rubric-item">
      <div className="rubric-item-head">
        <label className="rubric-key">
          Feedback key
          <input
            data-testid="rubric-key-input"
            list="feedback-keys"
            value={draft.key}
            placeholder="e.g. correctness"
            onChange={(e) => onChange({ key: e.target.value })}
            aria-label={`Feedback key of rubric item ${index + 1}`}
          />
        </label>
        <label className="rubric-description">
          Description
          <input
            data-testid="rubric-description-input"
            value={draft.description}
            placeholder="what the reviewer judges"
            onChange={(e) => onChange({ description: e.target.value })}
          />
        </label>
        <label className="check rubric-required">
          <input
            type="checkbox"
            data-testid="rubric-required-input"
            checked={draft.required}
            onChange={(e) => onChange({ required: e.target.checked })}
          />
          Required
        </label>
        <button
          type="button"
          className="link-button danger-link"
          data-testid="rubric-remove"
          onClick={onRemove}
          aria-label={`Remove rubric item ${index + 1}`}
        >
          Remove
        </button>
      </div>
      <p className="muted rubric-config" data-testid="rubric-config">
        {draft.key.trim() ? configSummary(config) : 'Choose a key: those with a feedback config are offered.'}
      </p>
      {draft.scores.length > 0 && (
        <div className="rubric-score-rows">
          {draft.scores.map((s, j) => (
            <div className="rubric-score-row" key={j} data-testid="score-description">
              <input
                data-testid="score-input"
                value={s.score}
                placeholder="score"
                aria-label="Score"
                inputMode="decimal"
                onChange={(e) => setScore(j, { score: e.target.value })}
              />
              <input
                data-testid="score-description-input"
                value={s.description}
                placeholder={labelOf(s.score) ? `what “${labelOf(s.score)}” means` : 'what this score means'}
                aria-label="What this score means"
                onChange={(e) => setScore(j, { description: e.target.value })}
              />
              <button
                type="button"
                className="link-button danger-link"
                aria-label="Remove this score description"
                onClick={() => onChange({ scores: draft.scores.filter((_, k) => k !== j) })}
              >
                ×
              </button>
            </div>
          ))}
        </div>
      )}
      <div className="rubric-item-actions">
        {config?.type !== 'freeform' && (
          <button
            type="button"
            className="link-button"
            data-testid="score-add"
            onClick={() => onChange({ scores: [...draft.scores, { score: '', description: '' }] })}
          >
            + Describe a score
          </button>
        )}
        {draft.scores.length === 0 && offered.length > 0 && (
          <button
            type="button"
            className="link-button"
            data-testid="score-describe-all"
            onClick={() =>
              onChange({
                scores: offered.map((c) => ({ score: String(c.score), description: '' })),
              })
            }
          >
            Describe each of its {offered.length} scores
          </button>
        )}
      </div>
    </div>
  );
}
