// A feedback item as its edit form holds it (text boxes) and the PATCH that an edit makes: only
// the fields changed, null for a field emptied. A value or correction is JSON when it parses as
// JSON (an object, a number, a quoted string), else the text itself.

/** What an edit may change of a feedback item (the fields of PATCH /feedback/{id}). */
export interface EditableFeedback {
  score: number | null;
  value: unknown;
  comment: string | null;
  correction?: unknown;
}

/** What an edit changes (only the fields given; null clears one). */
export type FeedbackChanges = Partial<EditableFeedback>;

export interface FeedbackDraft {
  score: string;
  value: string;
  comment: string;
  correction: string;
}

/** A JSON value as a text box shows it: text as itself, anything else as JSON, none as nothing. */
export const editableText = (v: unknown): string => (v == null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** A text box's value back: nothing as null, JSON when it parses, else the text. */
export function parsedText(text: string): unknown {
  const t = text.trim();
  if (t === '') return null;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return t;
  }
}

export const draftOf = (f: EditableFeedback): FeedbackDraft => ({
  score: f.score == null ? '' : String(f.score),
  value: editableText(f.value),
  comment: f.comment ?? '',
  correction: editableText(f.correction),
});

/** The PATCH body of an edit (empty when nothing changed), or why it cannot be sent. */
export function changesOf(
  f: EditableFeedback,
  draft: FeedbackDraft,
): { changes: FeedbackChanges } | { problem: string } {
  const before = draftOf(f);
  const changes: FeedbackChanges = {};
  if (draft.score.trim() !== before.score) {
    const score = draft.score.trim() === '' ? null : Number(draft.score);
    if (score !== null && !Number.isFinite(score))
      return { problem: `The score must be a number; got "${draft.score}".` };
    changes.score = score;
  }
  if (draft.value.trim() !== before.value.trim()) changes.value = parsedText(draft.value);
  if (draft.comment.trim() !== before.comment.trim()) changes.comment = draft.comment.trim() || null;
  if (draft.correction.trim() !== before.correction.trim()) changes.correction = parsedText(draft.correction);
  return { changes };
}
