// How the reviewer's page scores a rubric item from its key's feedback config: categories as
// choices (score and label), a short whole-number range as choices too, a long or fractional range
// as a number, free text; without a config, the scores the rubric describes. And what is sent.
import { expect, test } from 'vitest';
import {
  descriptionsOf,
  feedbackBody,
  problemOf,
  scoringOf,
  typedScore,
} from '../../../../apps/explorer/annotation-queues/rubric.ts';

const item = { feedback_key: 'correctness', score_descriptions: { '1': 'right' }, value_descriptions: { no: 'off' } };

test('a categorical key: its categories, described by value (label) or by score', () => {
  const scoring = scoringOf(item, {
    type: 'categorical',
    categories: [
      { value: 0, label: 'no' },
      { value: 1, label: 'yes' },
    ],
  });
  expect(scoring).toEqual({
    kind: 'choices',
    numeric: false,
    min: null,
    max: null,
    choices: [
      { score: 0, label: 'no', description: 'off' },
      { score: 1, label: 'yes', description: 'right' },
    ],
  });
});

test('a continuous key: a short whole range as choices, else a number within it', () => {
  const short = scoringOf(item, { type: 'continuous', min: 1, max: 5 });
  expect(short.kind === 'choices' && short.choices.map((c) => [c.score, c.description])).toEqual([
    [1, 'right'],
    [2, null],
    [3, null],
    [4, null],
    [5, null],
  ]);
  expect(scoringOf(item, { type: 'continuous', min: 0, max: 100 })).toEqual({ kind: 'number', min: 0, max: 100 });
  expect(scoringOf(item, { type: 'continuous', min: 0, max: 0.5 })).toEqual({ kind: 'number', min: 0, max: 0.5 });
  expect(scoringOf(item, { type: 'freeform' })).toEqual({ kind: 'text' });
});

test('no config: the described scores as choices, or any number', () => {
  const described = scoringOf(
    { feedback_key: 'k', score_descriptions: { '1': 'good', '0': 'bad', x: '?' } },
    undefined,
  );
  expect(described.kind === 'choices' && described.choices.map((c) => c.score)).toEqual([0, 1]);
  expect(scoringOf({ feedback_key: 'k' }, undefined)).toEqual({ kind: 'number', min: null, max: null });
});

test('what cannot be sent: a required key unscored, a score out of range', () => {
  const range = scoringOf(item, { type: 'continuous', min: 0, max: 100 });
  expect(problemOf({ ...item, is_required: true }, range, undefined)).toBe('correctness is required');
  expect(problemOf(item, range, undefined)).toBeNull();
  expect(problemOf(item, range, { score: 101, label: null, text: '' })).toBe(
    'correctness: the score must be at most 100',
  );
  expect(problemOf(item, range, { score: -1, label: null, text: '' })).toBe(
    'correctness: the score must be at least 0',
  );
  expect([typedScore(''), typedScore(' 2.5 '), typedScore('x')]).toEqual([null, 2.5, Number.NaN]);
});

test('the feedback sent: score, the label or the text as value, the comment, given in the app', () => {
  const run = { id: 'r', trace_id: 't' };
  expect(feedbackBody(item, { score: 1, label: 'yes', text: '' }, run, ' fine ', 'f')).toEqual({
    id: 'f',
    run_id: 'r',
    trace_id: 't',
    key: 'correctness',
    score: 1,
    value: 'yes',
    comment: 'fine',
    feedback_source: { type: 'app' },
  });
  expect(feedbackBody(item, { score: null, label: null, text: ' because ' }, run, '', 'f')).toMatchObject({
    score: null,
    value: 'because',
    comment: null,
  });
});

test("the dialog's score descriptions: empty rows dropped, none as null", () => {
  expect(
    descriptionsOf([
      { score: '1', description: ' bad ' },
      { score: '2', description: '' },
      { score: '', description: 'x' },
    ]),
  ).toEqual({ '1': 'bad' });
  expect(descriptionsOf([])).toBeNull();
});
