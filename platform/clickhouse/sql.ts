// The one literal binder. ClickHouse 18.16 has no server-side query parameters, so every
// value reaches SQL through `sql` below and nowhere else. Identifiers go through `ident`.
// Fuzz-tested in test/platform/clickhouse/sql.test.ts.

export interface Sql {
  readonly __sql: true;
  readonly text: string;
}

export type SqlValue = string | number | bigint | boolean | null | undefined | Date | Sql | readonly SqlValue[];

const isSql = (v: unknown): v is Sql => typeof v === 'object' && v !== null && (v as Sql).__sql === true;

/** A string literal: quoted, with backslash and quote escaped and control bytes written as escapes. */
export function quoteString(value: string): string {
  let out = "'";
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    const code = value.charCodeAt(i);
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += "\\'";
    else if (code === 0) out += '\\0';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += '\\x' + code.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + "'";
}

export function literal(value: SqlValue): string {
  if (value === null || value === undefined) return 'NULL';
  if (isSql(value)) return value.text;
  if (typeof value === 'string') return quoteString(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`cannot bind non-finite number ${value}`);
    // ClickHouse 18.16 cannot parse subnormal doubles (5e-324 and the like) back.
    if (value !== 0 && Math.abs(value) < 2.2250738585072014e-308)
      throw new TypeError(`cannot bind subnormal number ${value}`);
    // Avoid exponent forms ClickHouse may read as Float where an Int was meant.
    return Number.isInteger(value) && Math.abs(value) < 2 ** 53 ? value.toFixed(0) : String(value);
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError('cannot bind an invalid Date');
    return quoteString(value.toISOString().replace('T', ' ').slice(0, 19));
  }
  if (Array.isArray(value)) return '[' + value.map((v) => literal(v)).join(', ') + ']';
  throw new TypeError(`cannot bind value of type ${typeof value}`);
}

/** Tagged template: every interpolation is bound as a literal (or spliced if it is already Sql). */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): Sql {
  let text = strings[0]!;
  for (let i = 0; i < values.length; i++) text += literal(values[i]) + strings[i + 1]!;
  return { __sql: true, text };
}

/** An identifier (table, column, database): only plain names are allowed, quoted with backticks. */
export function ident(name: string): Sql {
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(name))
    throw new TypeError(`invalid identifier: ${name}`);
  return {
    __sql: true,
    text: name
      .split('.')
      .map((p) => '`' + p + '`')
      .join('.'),
  };
}

export function join(parts: readonly Sql[], separator = ', '): Sql {
  return { __sql: true, text: parts.map((p) => p.text).join(separator) };
}

export const raw = (text: string): Sql => ({ __sql: true, text });

/** UUIDs as a list of `toUUID('…')`, for `has([…], …)` and arrays: typed UUID, as a comparison needs. */
export const uuidList = (ids: readonly string[]): Sql => join(ids.map((id) => sql`toUUID(${id})`));

/**
 * UUIDs as string literals, for a set: `column IN (…)`, and the UUIDs of key tuples
 * `(…) IN ((…), …)`. ClickHouse converts a set's elements to the column's type as it builds it
 * (18.16 and current releases alike; a string that is not a UUID is an error, as in toUUID), and
 * a list of literals parses as one constant, where each `toUUID('…')` is a function call the
 * analyser evaluates, again for each place the set is used: a page's 100 key tuples took
 * 44 ms instead of 28 on 18.16. Not for has([…]) or `=`: there String and UUID have no common type.
 */
export const uuidSet = (ids: readonly string[]): Sql => join(ids.map((id) => sql`${id}`));
