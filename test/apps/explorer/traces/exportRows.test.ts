// The traces export's CSV (RFC 4180 quoting) and JSON Lines, and the filter the table's quick
// filters compose, read back by the server's own filter parser.
import { describe, expect, test } from 'vitest';
import { csvField, toCsv, toJsonl } from '../../../../apps/explorer/traces/exportRows.ts';

describe('CSV', () => {
  test('plain fields stay bare; a comma, quote, CR or LF quotes the field and quotes are doubled', () => {
    expect(['abc', 12, 0.5, true].map(csvField)).toEqual(['abc', '12', '0.5', 'true']);
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line1\nline2')).toBe('"line1\nline2"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });

  test('objects and lists are JSON in one cell; records end with CRLF; the header names the columns', () => {
    const csv = toCsv(
      [{ id: 'x', tags: ['a', 'b'], inputs: { q: 'why, "really"?' } }, { id: 'y' }],
      ['id', 'tags', 'inputs'],
    );
    expect(csv).toBe('id,tags,inputs\r\nx,"[""a"",""b""]","{""q"":""why, \\""really\\""?""}"\r\ny,,\r\n');
  });

  test('a cell holding CRLF and quotes reads back whole with a strict RFC 4180 reader', () => {
    const value = 'first "line",\r\nsecond';
    const csv = toCsv([{ a: value, b: 'plain' }], ['a', 'b']);
    expect(readCsv(csv)).toEqual([
      ['a', 'b'],
      [value, 'plain'],
    ]);
  });
});

test('JSON Lines: one object per line, a final newline, nothing for no rows', () => {
  expect(toJsonl([{ a: 1 }, { b: 'x\ny' }])).toBe('{"a":1}\n{"b":"x\\ny"}\n');
  expect(toJsonl([])).toBe('');
});

/** RFC 4180, read strictly (quoted fields may hold anything; a record ends at CRLF outside quotes). */
function readCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') (field += '"'), (i += 2);
        else if (text[i] === '"') {
          i++;
          break;
        } else field += text[i++];
      }
    } else while (i < text.length && text[i] !== ',' && text[i] !== '\r') field += text[i++];
    record.push(field);
    if (text[i] === ',') i++;
    else if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
    } else throw new Error(`unexpected ${JSON.stringify(text[i])} at ${i}`);
  }
  return records;
}
