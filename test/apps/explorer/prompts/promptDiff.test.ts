// The prompts' commit diff: lines kept, removed and added, numbered on their side, and a removed
// line compared word by word with the added line in its place.
import { expect, test } from 'vitest';
import { diffCounts, diffText } from '../../../../apps/explorer/prompts/promptDiff.ts';

test('a changed line: kept lines around it, the words that changed marked on each side', () => {
  const blocks = diffText(
    '[system]\nYou answer in {language}.\n\n[human]\n{q}',
    '[system]\nYou answer in {language}, briefly.\n\n[human]\n{q}',
  );
  expect(blocks.map((b) => b.kind)).toEqual(['same', 'change', 'same']);
  expect(blocks[0]).toEqual({ kind: 'same', lines: [{ oldNo: 1, newNo: 1, text: '[system]' }] });
  const change = blocks[1]!;
  if (change.kind !== 'change') throw new Error('no change');
  expect(change.removed.map((l) => l.no)).toEqual([2]);
  expect(change.added.map((l) => l.no)).toEqual([2]);
  // Only the words put in are marked: the line's other words are kept on both sides.
  expect(change.removed[0]!.segments).toEqual([{ text: 'You answer in {language}.', changed: false }]);
  expect(change.added[0]!.segments.filter((s) => s.changed).map((s) => s.text)).toEqual([', briefly']);
  expect(change.added[0]!.segments.map((s) => s.text).join('')).toBe('You answer in {language}, briefly.');
  expect(blocks[2]).toMatchObject({ kind: 'same', lines: [{ oldNo: 3, newNo: 3 }, { oldNo: 4 }, { oldNo: 5 }] });
  expect(diffCounts(blocks)).toEqual({ added: 1, removed: 1 });
});

test('changed words with only spaces between them are one change', () => {
  const [change] = diffText('Answer in {language}, briefly and kindly.', 'Answer in {language}. Cite the {manual}.');
  if (change?.kind !== 'change') throw new Error('no change');
  expect(change.added[0]!.segments).toEqual([
    { text: 'Answer in {language}', changed: false },
    { text: '. Cite the {manual}', changed: true },
    { text: '.', changed: false },
  ]);
  expect(change.removed[0]!.segments).toEqual([
    { text: 'Answer in {language}', changed: false },
    { text: ', briefly and kindly', changed: true },
    { text: '.', changed: false },
  ]);
});

test('lines only added and only removed, numbered on their own side and not word-marked; the same text is one kept block', () => {
  const blocks = diffText('a\nb\nc', 'a\nc\nd\ne');
  expect(blocks).toEqual([
    { kind: 'same', lines: [{ oldNo: 1, newNo: 1, text: 'a' }] },
    { kind: 'change', removed: [{ no: 2, segments: [{ text: 'b', changed: false }] }], added: [] },
    { kind: 'same', lines: [{ oldNo: 3, newNo: 2, text: 'c' }] },
    {
      kind: 'change',
      removed: [],
      added: [
        { no: 3, segments: [{ text: 'd', changed: false }] },
        { no: 4, segments: [{ text: 'e', changed: false }] },
      ],
    },
  ]);
  expect(diffCounts(blocks)).toEqual({ added: 2, removed: 1 });
  expect(diffText('same\ntext', 'same\ntext')).toEqual([
    {
      kind: 'same',
      lines: [
        { oldNo: 1, newNo: 1, text: 'same' },
        { oldNo: 2, newNo: 2, text: 'text' },
      ],
    },
  ]);
});
