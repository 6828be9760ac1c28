// What an edit of a feedback item sends (PATCH /feedback/{id}): only the fields changed, null for
// one emptied, a value or correction as JSON when it parses, else as text.
import { expect, test } from 'vitest';
import { changesOf, draftOf, type EditableFeedback, parsedText } from '../../../../apps/explorer/trace/feedbackEdit.ts';

const f: EditableFeedback = { score: 4, value: { label: 'good' }, comment: 'ok', correction: null };

test('the form holds text: numbers and JSON as written, none as nothing', () => {
  expect(draftOf(f)).toEqual({ score: '4', value: '{"label":"good"}', comment: 'ok', correction: '' });
});

test('only what changed is sent', () => {
  expect(changesOf(f, draftOf(f))).toEqual({ changes: {} });
  expect(changesOf(f, { ...draftOf(f), score: '3', correction: '{"answer": "Paris"}' })).toEqual({
    changes: { score: 3, correction: { answer: 'Paris' } },
  });
  expect(changesOf(f, { ...draftOf(f), score: '', comment: ' ', value: 'plain words' })).toEqual({
    changes: { score: null, comment: null, value: 'plain words' },
  });
  expect(changesOf(f, { ...draftOf(f), score: 'x' })).toEqual({ problem: 'The score must be a number; got "x".' });
});

test('text as JSON when it parses', () => {
  expect([parsedText(''), parsedText('3'), parsedText('"3"'), parsedText('three'), parsedText('[1]')]).toEqual([
    null,
    3,
    '3',
    'three',
    [1],
  ]);
});
