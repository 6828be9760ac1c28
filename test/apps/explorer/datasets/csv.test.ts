// What the CSV upload dialog reads of a file: the header's columns and the rows under it, with
// RFC 4180 quoting (commas, line breaks and doubled quotes inside quotes), a byte-order mark and
// Windows line ends.
import { expect, test } from 'vitest';
import { csvOutline, nameOfFile, parseCsv } from '../../../../apps/explorer/datasets/csv.ts';

test('quoted fields hold commas, line breaks and quotes; empty lines are not rows', () => {
  expect(parseCsv('a,b,c\n1,"x, y","say ""hi""\nthere"\n\n2,,\n')).toEqual([
    ['a', 'b', 'c'],
    ['1', 'x, y', 'say "hi"\nthere'],
    ['2', '', ''],
  ]);
});

test('a byte-order mark, CRLF line ends and no final line break', () => {
  expect(csvOutline('\uFEFFquestion,answer\r\nq1,a1\r\nq2,a2')).toEqual({ columns: ['question', 'answer'], rows: 2 });
  expect(csvOutline('')).toEqual({ columns: [], rows: 0 });
  expect(csvOutline('only\n')).toEqual({ columns: ['only'], rows: 0 });
});

test("a dataset's name from its file's", () => {
  expect([nameOfFile('capitals.csv'), nameOfFile('Q.CSV'), nameOfFile('data.tsv')]).toEqual([
    'capitals',
    'Q',
    'data.tsv',
  ]);
});
