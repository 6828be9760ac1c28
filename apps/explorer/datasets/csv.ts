// What the CSV upload dialog reads of a file before sending it: its header's column names and
// how many rows follow, parsed as the server parses it (RFC 4180 quoting: fields in double quotes
// may hold commas, line breaks and doubled quotes; a byte-order mark is skipped; empty lines are
// not rows).

export interface CsvOutline {
  columns: string[];
  rows: number;
}

/** The records of a CSV text, each a list of its fields. */
export function parseCsv(text: string): string[][] {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const endRecord = () => {
    record.push(field);
    if (record.length > 1 || record[0] !== '') records.push(record);
    record = [];
    field = '';
  };
  while (i < source.length) {
    const ch = source[i]!;
    if (quoted) {
      if (ch === '"' && source[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (ch === '"') quoted = false;
      else field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      record.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      endRecord();
      if (ch === '\r' && source[i + 1] === '\n') i++;
    } else field += ch;
    i++;
  }
  if (field !== '' || record.length > 0) endRecord();
  return records;
}

/** The header's column names and the number of rows under it. */
export function csvOutline(text: string): CsvOutline {
  const [header = [], ...rows] = parseCsv(text);
  return { columns: header, rows: rows.length };
}

/** The dataset name a file suggests: its name without ".csv". */
export const nameOfFile = (fileName: string): string => fileName.replace(/\.csv$/i, '');
