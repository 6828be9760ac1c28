// The LangSmith filter language (`filter`, `trace_filter`, `tree_filter` of /runs/query):
// text -> syntax tree. The grammar is a handful of calls over fields and literals,
//
//   expr    := NAME '(' [arg (',' arg)*] ')'
//   arg     := expr | NAME | literal | '[' [literal (',' literal)*] ']'
//   literal := "string" | 'string' | number | true | false | null
//
// e.g. and(eq(run_type, "llm"), or(gt(latency, "5s"), has(tags, 'beta'))), so a small
// recursive-descent parser is clearer than a grammar library and gives exact positions.
// The parser checks operators and arity; fields and values are checked by the compiler
// (filterSql.ts), which knows each field's type. Every failure is a 400 naming the problem and
// its position (1-based character), never another exception.
import { errors } from '../../../platform/errors.ts';

export const COMPARATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'has', 'search', 'in', 'like', 'exists'] as const;
export type Comparator = (typeof COMPARATORS)[number];
const LOGICAL = ['and', 'or', 'not'] as const;

export type Scalar =
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'number'; value: number; pos: number }
  | { kind: 'bool'; value: boolean; pos: number }
  | { kind: 'null'; pos: number };
export type Literal = Scalar | { kind: 'list'; items: Scalar[]; pos: number };

export interface FieldRef {
  name: string;
  pos: number;
}

export type FilterNode =
  | { kind: 'and' | 'or'; args: FilterNode[]; pos: number }
  | { kind: 'not'; arg: FilterNode; pos: number }
  /** `field` is null only for full-text `search("…")`; `value` is null only for `exists(field)`. */
  | { kind: 'compare'; op: Comparator; field: FieldRef | null; value: Literal | null; pos: number };

export const MAX_FILTER_LENGTH = 32 * 1024;
const MAX_DEPTH = 64;

type Token =
  | { t: 'name'; text: string; pos: number }
  | { t: 'string'; value: string; pos: number }
  | { t: 'number'; value: number; pos: number }
  | { t: '(' | ')' | ',' | '[' | ']' | 'end'; pos: number };

type Arg = { a: 'node'; node: FilterNode } | { a: 'field'; field: FieldRef } | { a: 'literal'; literal: Literal };

/** Thrown for every problem in a filter: 400, "<where>: <problem> at position N". */
export function filterError(where: string, message: string, pos: number, hint?: string) {
  return errors.invalidFilter(`${where}: ${message} at position ${pos + 1}${hint ? ` (${hint})` : ''}`);
}

const show = (text: string) => JSON.stringify(text.length > 40 ? text.slice(0, 40) + '…' : text);

function tokenize(text: string, where: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if ('(),[]'.includes(ch)) {
      tokens.push({ t: ch as '(' | ')' | ',' | '[' | ']', pos: i });
      i++;
    } else if (ch === '"' || ch === "'") {
      const start = i;
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw filterError(where, 'unterminated string', start);
        const c = text[i]!;
        if (c === ch) break;
        if (c === '\\') {
          const next = text[i + 1];
          if (next === undefined) throw filterError(where, 'unterminated string', start);
          if (next === 'u') {
            const hex = text.slice(i + 2, i + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw filterError(where, 'bad \\u escape in string', i);
            value += String.fromCharCode(parseInt(hex, 16));
            i += 6;
            continue;
          }
          value += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'r' ? '\r' : next;
          i += 2;
          continue;
        }
        value += c;
        i++;
      }
      tokens.push({ t: 'string', value, pos: start });
      i++;
    } else if (/[-+0-9.]/.test(ch)) {
      const m = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(text.slice(i));
      const value = m ? Number(m[0]) : NaN;
      if (!m || !Number.isFinite(value)) throw filterError(where, `bad number ${show(text.slice(i, i + 20))}`, i);
      // ClickHouse 18.16 cannot read subnormal doubles back.
      if (value !== 0 && Math.abs(value) < 2.2250738585072014e-308)
        throw filterError(where, `number out of range ${show(m[0])}`, i);
      tokens.push({ t: 'number', value, pos: i });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(text.slice(i))!;
      tokens.push({ t: 'name', text: m[0], pos: i });
      i += m[0].length;
    } else {
      throw filterError(where, `unexpected character ${show(ch)}`, i);
    }
  }
  tokens.push({ t: 'end', pos: text.length });
  return tokens;
}

const describeToken = (tok: Token): string =>
  tok.t === 'end'
    ? 'the end of the filter'
    : tok.t === 'name'
      ? show(tok.text)
      : tok.t === 'string'
        ? `the string ${show(tok.value)}`
        : tok.t === 'number'
          ? `the number ${tok.value}`
          : `"${tok.t}"`;

/** Bare words that are values, not field names (Python spellings too). */
const KEYWORDS = new Map<string, { kind: 'bool'; value: boolean } | { kind: 'null' }>([
  ['true', { kind: 'bool', value: true }],
  ['True', { kind: 'bool', value: true }],
  ['false', { kind: 'bool', value: false }],
  ['False', { kind: 'bool', value: false }],
  ['null', { kind: 'null' }],
  ['None', { kind: 'null' }],
]);

class Parser {
  readonly #tokens: Token[];
  readonly #where: string;
  #at = 0;

  constructor(tokens: Token[], where: string) {
    this.#tokens = tokens;
    this.#where = where;
  }

  #peek(): Token {
    return this.#tokens[this.#at]!;
  }

  #next(): Token {
    return this.#tokens[this.#at++]!;
  }

  #fail(message: string, pos: number): never {
    throw filterError(this.#where, message, pos);
  }

  #expect(t: Token['t'], what: string): Token {
    const tok = this.#next();
    if (tok.t !== t) this.#fail(`expected ${what}, found ${describeToken(tok)}`, tok.pos);
    return tok;
  }

  parseFilter(): FilterNode {
    const first = this.#peek();
    if (first.t !== 'name')
      this.#fail(`expected an operator such as eq(…) or and(…), found ${describeToken(first)}`, first.pos);
    const node = this.#call(0);
    const rest = this.#peek();
    if (rest.t !== 'end') this.#fail(`unexpected ${describeToken(rest)} after the end of the expression`, rest.pos);
    return node;
  }

  /** NAME '(' args ')', with the operator's arity and argument kinds checked. */
  #call(depth: number): FilterNode {
    const name = this.#expect('name', 'an operator') as Extract<Token, { t: 'name' }>;
    if (depth >= MAX_DEPTH) this.#fail(`expressions nested deeper than ${MAX_DEPTH} levels`, name.pos);
    const op = name.text.toLowerCase();
    if (!(COMPARATORS as readonly string[]).includes(op) && !(LOGICAL as readonly string[]).includes(op))
      throw filterError(
        this.#where,
        `unknown operator ${show(name.text)}`,
        name.pos,
        `operators: ${[...COMPARATORS, ...LOGICAL].join(', ')}`,
      );
    this.#expect('(', `"(" after ${op}`);
    const args: Arg[] = [];
    if (this.#peek().t !== ')') {
      for (;;) {
        args.push(this.#arg(depth));
        const sep = this.#next();
        if (sep.t === ')') break;
        if (sep.t !== ',') this.#fail(`expected "," or ")" in ${op}(…), found ${describeToken(sep)}`, sep.pos);
      }
    } else this.#next();
    return this.#build(op, args, name.pos);
  }

  #arg(depth: number): Arg {
    const tok = this.#peek();
    if (tok.t === 'name') {
      if (this.#tokens[this.#at + 1]?.t === '(') return { a: 'node', node: this.#call(depth + 1) };
      this.#next();
      const keyword = KEYWORDS.get(tok.text);
      if (keyword) return { a: 'literal', literal: { ...keyword, pos: tok.pos } };
      return { a: 'field', field: { name: tok.text, pos: tok.pos } };
    }
    if (tok.t === '[') {
      this.#next();
      const items: Scalar[] = [];
      if (this.#peek().t === ']') this.#next();
      else
        for (;;) {
          const item = this.#scalar();
          items.push(item);
          const sep = this.#next();
          if (sep.t === ']') break;
          if (sep.t !== ',') this.#fail(`expected "," or "]" in a list, found ${describeToken(sep)}`, sep.pos);
        }
      return { a: 'literal', literal: { kind: 'list', items, pos: tok.pos } };
    }
    return { a: 'literal', literal: this.#scalar() };
  }

  #scalar(): Scalar {
    const tok = this.#next();
    if (tok.t === 'string') return { kind: 'string', value: tok.value, pos: tok.pos };
    if (tok.t === 'number') return { kind: 'number', value: tok.value, pos: tok.pos };
    const keyword = tok.t === 'name' ? KEYWORDS.get(tok.text) : undefined;
    if (keyword) return { ...keyword, pos: tok.pos };
    this.#fail(
      `expected a value (a quoted string, a number, true, false or null), found ${describeToken(tok)}`,
      tok.pos,
    );
  }

  #build(op: string, args: Arg[], pos: number): FilterNode {
    const argPos = (arg: Arg) =>
      arg.a === 'node' ? arg.node.pos : arg.a === 'field' ? arg.field.pos : arg.literal.pos;
    const conditions = (): FilterNode[] =>
      args.map((arg) =>
        arg.a === 'node'
          ? arg.node
          : this.#fail(`${op}() takes conditions such as eq(…), not a field or value`, argPos(arg)),
      );
    const field = (arg: Arg): FieldRef =>
      arg.a === 'field' ? arg.field : this.#fail(`${op}() expects a field name as its first argument`, argPos(arg));
    const value = (arg: Arg): Literal => {
      if (arg.a === 'literal') return arg.literal;
      if (arg.a === 'field')
        this.#fail(
          `${op}() expects a value (a quoted string, a number, true, false, null or a list), found the bare name ${show(arg.field.name)}; quote strings`,
          arg.field.pos,
        );
      return this.#fail(`${op}() expects a value, not a condition`, arg.node.pos);
    };
    const arity = (n: string) => this.#fail(`${op}() takes ${n}, got ${args.length}`, pos);

    if (op === 'and' || op === 'or') {
      if (args.length === 0) arity('at least one condition');
      return { kind: op, args: conditions(), pos };
    }
    if (op === 'not') {
      if (args.length !== 1) arity('exactly one condition');
      return { kind: 'not', arg: conditions()[0]!, pos };
    }
    const cmp = op as Comparator;
    if (cmp === 'exists') {
      if (args.length !== 1) arity('one field');
      return { kind: 'compare', op: cmp, field: field(args[0]!), value: null, pos };
    }
    if (cmp === 'search' && args.length === 1) {
      const text = value(args[0]!);
      if (text.kind !== 'string') this.#fail('search() expects a quoted string', text.pos);
      return { kind: 'compare', op: cmp, field: null, value: text, pos };
    }
    if (args.length !== 2) arity(cmp === 'search' ? 'a string, or a field and a string' : 'a field and a value');
    return { kind: 'compare', op: cmp, field: field(args[0]!), value: value(args[1]!), pos };
  }
}

/** Parses filter text; `where` names the request field in error messages (filter, trace_filter, …). */
export function parseFilter(text: string, where = 'filter'): FilterNode {
  if (text.length > MAX_FILTER_LENGTH)
    throw errors.invalidFilter(`${where} is longer than ${MAX_FILTER_LENGTH} characters`);
  return new Parser(tokenize(text, where), where).parseFilter();
}
