// How a rubric item is scored on the reviewer's page, from the key's feedback config when it has
// one: a categorical key offers its categories (score = the category's value, value = its label),
// a continuous key a number within its range (and each whole number of a short range as a
// choice), a freeform key text; a key without a config offers the scores its rubric item
// describes, and any number. What a reviewer gave becomes the feedback bodies to POST.
import type { FeedbackConfig, RubricItem } from './queuesApi.ts';

/** One choice of an item: pressed with a button, or with its digit (1–9) on the keyboard. */
export interface Choice {
  score: number;
  /** The category's label (sent as the feedback's value), when it has one. */
  label: string | null;
  /** What the rubric says the choice means. */
  description: string | null;
}

export type Scoring =
  | { kind: 'choices'; choices: Choice[]; min: number | null; max: number | null; numeric: boolean }
  | { kind: 'number'; min: number | null; max: number | null }
  | { kind: 'text' };

/** A continuous range this short (max − min, whole numbers) is offered as choices too. */
const MAX_CHOICE_SPAN = 8;

const described = (item: RubricItem, score: number, label: string | null): string | null =>
  (label !== null ? item.value_descriptions?.[label] : undefined) ?? item.score_descriptions?.[String(score)] ?? null;

export function scoringOf(item: RubricItem, config: FeedbackConfig | undefined): Scoring {
  if (config?.type === 'freeform') return { kind: 'text' };
  if (config?.type === 'categorical')
    return {
      kind: 'choices',
      numeric: false,
      min: null,
      max: null,
      choices: config.categories.map((c) => ({
        score: c.value,
        label: c.label ?? null,
        description: described(item, c.value, c.label ?? null),
      })),
    };
  const min = config?.type === 'continuous' ? (config.min ?? null) : null;
  const max = config?.type === 'continuous' ? (config.max ?? null) : null;
  let scores: number[] = [];
  if (min !== null && max !== null && Number.isInteger(min) && Number.isInteger(max) && max - min <= MAX_CHOICE_SPAN)
    for (let s = min; s <= max; s++) scores.push(s);
  else if (!config)
    scores = Object.keys(item.score_descriptions ?? {})
      .map(Number)
      .filter(Number.isFinite)
      .sort((a, b) => a - b);
  if (scores.length === 0) return { kind: 'number', min, max };
  return {
    kind: 'choices',
    numeric: true,
    min,
    max,
    choices: scores.map((score) => ({ score, label: null, description: described(item, score, null) })),
  };
}

/** What a reviewer gave an item: a choice's score (and label), a typed number, or text. */
export interface Answer {
  score: number | null;
  label: string | null;
  text: string;
}

export const NO_ANSWER: Answer = { score: null, label: null, text: '' };

export const answered = (a: Answer | undefined): boolean => !!a && (a.score !== null || a.text.trim() !== '');

/** Why an answer cannot be sent (a score out of its range), or null. */
export function problemOf(item: RubricItem, scoring: Scoring, answer: Answer | undefined): string | null {
  if (!answered(answer)) return item.is_required ? `${item.feedback_key} is required` : null;
  if (scoring.kind === 'text' || answer!.score === null) return null;
  const { min, max } = scoring;
  if (min !== null && answer!.score < min) return `${item.feedback_key}: the score must be at least ${min}`;
  if (max !== null && answer!.score > max) return `${item.feedback_key}: the score must be at most ${max}`;
  return null;
}

/** A number typed for a score: null when empty, NaN when not a number. */
export const typedScore = (text: string): number | null => (text.trim() === '' ? null : Number(text));

/** The POST /feedback body of an answered item (feedback given in this app). */
export function feedbackBody(
  item: RubricItem,
  answer: Answer,
  run: { id: string; trace_id: string },
  comment: string,
  id: string,
): Record<string, unknown> {
  return {
    id,
    run_id: run.id,
    trace_id: run.trace_id,
    key: item.feedback_key,
    score: answer.score,
    value: answer.label ?? (answer.text.trim() || null),
    comment: comment.trim() || null,
    feedback_source: { type: 'app' },
  };
}

/** A rubric item's score descriptions as the dialog edits them (rows), and back. */
export const descriptionRows = (d: Record<string, string> | null | undefined) =>
  Object.entries(d ?? {}).map(([score, description]) => ({ score, description }));

export function descriptionsOf(rows: Array<{ score: string; description: string }>): Record<string, string> | null {
  const kept = rows.filter((r) => r.score.trim() !== '' && r.description.trim() !== '');
  return kept.length === 0 ? null : Object.fromEntries(kept.map((r) => [r.score.trim(), r.description.trim()]));
}
