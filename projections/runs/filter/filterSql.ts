// The filter language's syntax tree (filterParser.ts) -> a ClickHouse condition on `runs`.
// Every value goes through the one binder (`sql`); column names come from the table below,
// never from the request. Each field has a type that decides which operators apply and which
// values it takes; anything else is a 400 naming the field or value and its position.
//
// Pairing: inside one and(…), a metadata_key comparison and a metadata_value comparison
// describe the same metadata entry (`arrayExists((k, v) -> …)`), and a feedback_key and a
// feedback_score comparison the same feedback item (of this workspace, FINAL). Only positive
// key comparisons pair (eq, in, like, search): neq(metadata_key, k) means "has no key k", as
// LangSmith documents. With several, the i-th key comparison pairs with the i-th value one.
// Payloads kept in object storage (above the offload threshold) are not searched by search("…").
import { ident, join, raw, sql, uuidSet, type Sql } from '../../../platform/clickhouse/sql.ts';
import { AppError } from '../../../platform/errors.ts';
import { toUuid } from '../../../platform/ids.ts';
import { parseTimestampMicros } from '../../../platform/time.ts';
import { runsOfTraces } from '../runsTable.ts';
import {
  filterError,
  type Comparator,
  type FieldRef,
  type FilterNode,
  type Literal,
  type Scalar,
} from './filterParser.ts';

export interface FilterScope {
  tenantId: string;
  runsTable: string;
  /** run_keys of the same set of tables: where the runs of `traceIds` are in `runsTable`. */
  runKeysTable: string;
  feedbackTable: string;
  /**
   * Subqueries over runs (trace_filter, tree_filter) read FINAL when exact; otherwise they read
   * every stored version, which matches a superset (cheaper, for the candidate phase).
   */
  exact: boolean;
  /** Bounds run subqueries to these projects (a trace lives in one project). */
  sessionIds: readonly string[] | null;
  /** Bounds run subqueries to these traces (by the places of their runs: key columns, safe in PREWHERE under FINAL). */
  traceIds: readonly string[] | null;
  /**
   * Bounds run subqueries to the runs that started in this range (µs, both ends included): it
   * holds every run of the traces that matter, and the subqueries then answer for those only.
   */
  traceSpan?: { from: number; to: number } | null;
}

export interface CompiledCondition {
  sql: Sql;
  /** The `runs` columns the condition reads (so a caller can select them). */
  columns: Set<string>;
}

type FieldType =
  | 'string'
  | 'uuid'
  | 'time'
  | 'number'
  | 'latency'
  | 'bool'
  | 'error'
  | 'tags'
  | 'metadata'
  | 'metadata_key'
  | 'metadata_value'
  | 'feedback_key'
  | 'feedback_score';

interface FieldDef {
  type: FieldType;
  column?: string;
  nullable?: boolean;
  /** A String column where '' means "not set" (thread_id). */
  emptyIsNull?: boolean;
}

const FIELDS = new Map<string, FieldDef>([
  ['name', { type: 'string', column: 'name' }],
  ['run_type', { type: 'string', column: 'run_type' }],
  ['status', { type: 'string', column: 'status' }],
  ['thread_id', { type: 'string', column: 'thread_id', emptyIsNull: true }],
  ['error', { type: 'error', column: 'error' }],
  ['id', { type: 'uuid', column: 'id' }],
  ['trace_id', { type: 'uuid', column: 'trace_id' }],
  ['session_id', { type: 'uuid', column: 'session_id' }],
  ['parent_run_id', { type: 'uuid', column: 'parent_run_id', nullable: true }],
  ['reference_example_id', { type: 'uuid', column: 'reference_example_id', nullable: true }],
  ['start_time', { type: 'time', column: 'start_time' }],
  ['end_time', { type: 'time', column: 'end_time', nullable: true }],
  ['first_token_time', { type: 'time', column: 'first_token_time', nullable: true }],
  ['total_tokens', { type: 'number', column: 'total_tokens' }],
  ['prompt_tokens', { type: 'number', column: 'prompt_tokens' }],
  ['completion_tokens', { type: 'number', column: 'completion_tokens' }],
  ['total_cost', { type: 'number', column: 'total_cost' }],
  ['prompt_cost', { type: 'number', column: 'prompt_cost' }],
  ['completion_cost', { type: 'number', column: 'completion_cost' }],
  ['latency', { type: 'latency' }],
  ['is_root', { type: 'bool', column: 'is_root' }],
  ['tags', { type: 'tags', column: 'tags' }],
  ['metadata', { type: 'metadata' }],
  ['metadata_key', { type: 'metadata_key' }],
  ['metadata_value', { type: 'metadata_value' }],
  ['feedback_key', { type: 'feedback_key' }],
  ['feedback_score', { type: 'feedback_score' }],
]);

export const FILTER_FIELDS: readonly string[] = [...FIELDS.keys()];

const ORDERING = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'] as const;
const OPERATORS: Record<FieldType, readonly Comparator[]> = {
  string: ['eq', 'neq', 'in', 'like', 'search', 'exists'],
  uuid: ['eq', 'neq', 'in', 'exists'],
  time: [...ORDERING, 'exists'],
  number: [...ORDERING, 'in'],
  latency: [...ORDERING, 'exists'],
  bool: ['eq', 'neq'],
  error: ['eq', 'neq', 'like', 'search', 'exists'],
  tags: ['has', 'eq', 'neq', 'in', 'like', 'search', 'exists'],
  metadata: ['has'],
  metadata_key: ['eq', 'neq', 'in', 'like', 'search'],
  metadata_value: [...ORDERING, 'in', 'like', 'search'],
  feedback_key: ['eq', 'neq', 'in'],
  feedback_score: [...ORDERING],
};

const SQL_OP: Record<(typeof ORDERING)[number], string> = {
  eq: '=',
  neq: '!=',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
};
const POSITIVE_KEY_OPS: readonly Comparator[] = ['eq', 'in', 'like', 'search'];

type Compare = Extract<FilterNode, { kind: 'compare' }>;

const contains = (expr: Sql, text: string) => sql`positionCaseInsensitiveUTF8(${expr}, ${text}) > 0`;
/** `expr IN (items)`; false for no items. */
const inList = (expr: Sql, items: Sql[]): Sql => (items.length === 0 ? raw('0') : sql`${expr} IN (${join(items)})`);

class Compiler {
  readonly columns = new Set<string>();
  readonly #scope: FilterScope;
  readonly #where: string;

  constructor(scope: FilterScope, where: string) {
    this.#scope = scope;
    this.#where = where;
  }

  #fail(message: string, pos: number): never {
    throw filterError(this.#where, message, pos);
  }

  #col(name: string): Sql {
    this.columns.add(name);
    return raw(name);
  }

  node(n: FilterNode): Sql {
    switch (n.kind) {
      case 'and':
        return this.#and(n.args);
      case 'or':
        return sql`(${join(
          n.args.map((a) => this.node(a)),
          ' OR ',
        )})`;
      case 'not':
        // NOT over a comparison of a Nullable column must see "unknown" as false, not stay unknown.
        return sql`NOT ifNull(${this.node(n.arg)}, 0)`;
      case 'compare':
        return this.#compare(n);
    }
  }

  #and(args: FilterNode[]): Sql {
    const parts: Sql[] = [];
    const metaKeys: Compare[] = [];
    const metaValues: Compare[] = [];
    const feedbackKeys: Compare[] = [];
    const feedbackScores: Compare[] = [];
    for (const a of args) {
      const field = a.kind === 'compare' && a.field ? this.#field(a.field) : null;
      if (a.kind === 'compare' && field) this.#checkOperator(a, field);
      if (a.kind !== 'compare' || !field) parts.push(this.node(a));
      else if (field.type === 'metadata_key' && POSITIVE_KEY_OPS.includes(a.op)) metaKeys.push(a);
      else if (field.type === 'metadata_value') metaValues.push(a);
      else if (field.type === 'feedback_key' && POSITIVE_KEY_OPS.includes(a.op)) feedbackKeys.push(a);
      else if (field.type === 'feedback_score') feedbackScores.push(a);
      else parts.push(this.node(a));
    }
    // The i-th key comparison pairs with the i-th value comparison; the rest stand alone.
    for (let i = 0; i < Math.max(metaKeys.length, metaValues.length); i++)
      parts.push(this.#metadata(metaKeys[i] ?? null, metaValues[i] ?? null));
    for (let i = 0; i < Math.max(feedbackKeys.length, feedbackScores.length); i++)
      parts.push(this.#feedback(feedbackKeys[i] ?? null, feedbackScores[i] ?? null));
    return parts.length === 1 ? parts[0]! : sql`(${join(parts, ' AND ')})`;
  }

  #field(ref: FieldRef): FieldDef {
    const def = FIELDS.get(ref.name);
    if (!def)
      throw filterError(this.#where, `unknown field "${ref.name}"`, ref.pos, `fields: ${FILTER_FIELDS.join(', ')}`);
    return def;
  }

  #checkOperator(n: Compare, def: FieldDef): void {
    const allowed = OPERATORS[def.type].filter(
      (op) => op !== 'exists' || !['string', 'uuid', 'time'].includes(def.type) || def.nullable || def.emptyIsNull,
    );
    if (!allowed.includes(n.op))
      throw filterError(
        this.#where,
        `${n.op}() does not apply to ${n.field!.name}`,
        n.pos,
        `${n.field!.name} takes ${allowed.join(', ')}`,
      );
  }

  #compare(n: Compare): Sql {
    if (!n.field) return this.#fullTextSearch(this.#string(n.value));
    const def = this.#field(n.field);
    this.#checkOperator(n, def);
    switch (def.type) {
      case 'metadata_key':
        return this.#metadata(n, null);
      case 'metadata_value':
        return this.#metadata(null, n);
      case 'feedback_key':
        return this.#feedback(n, null);
      case 'feedback_score':
        return this.#feedback(null, n);
      case 'metadata':
        return this.#metadataObject(n);
      case 'tags':
        return this.#tags(n);
      case 'latency':
        return this.#latency(n);
      case 'error':
        return this.#error(n);
      default:
        return this.#scalar(n, def);
    }
  }

  // Plain columns: strings, UUIDs, times, numbers, booleans.
  #scalar(n: Compare, def: FieldDef): Sql {
    const col = this.#col(def.column!);
    const nullable = def.nullable === true;
    if (n.op === 'exists') return def.emptyIsNull ? sql`${col} != ''` : sql`isNotNull(${col})`;
    const v = n.value!;
    if (v.kind === 'null') {
      if (n.op !== 'eq' && n.op !== 'neq') this.#fail(`${n.op}() cannot compare with null`, v.pos);
      if (def.emptyIsNull) return n.op === 'eq' ? sql`${col} = ''` : sql`${col} != ''`;
      if (!nullable) return raw(n.op === 'eq' ? '0' : '1');
      return n.op === 'eq' ? sql`isNull(${col})` : sql`isNotNull(${col})`;
    }
    const bind = (s: Scalar): Sql => {
      switch (def.type) {
        case 'string':
          return sql`${this.#string(s)}`;
        case 'uuid':
          return sql`toUUID(${this.#uuid(s)})`;
        case 'time':
          return sql`${this.#time(s)}`;
        case 'number':
          return sql`${this.#number(s)}`;
        default:
          return sql`${this.#bool(s) ? 1 : 0}`;
      }
    };
    if (n.op === 'in') {
      const items = this.#list(v).map(bind);
      // ClickHouse 18.16 refuses `Nullable(UUID) IN (…)`; has() gives the same answer (NULL: no).
      return nullable && items.length ? sql`has([${join(items)}], ${col})` : inList(col, items);
    }
    if (n.op === 'like') return sql`like(${col}, ${this.#string(v)})`;
    if (n.op === 'search') return contains(col, this.#string(v));
    const value = bind(this.#one(v));
    const op = raw(SQL_OP[n.op as (typeof ORDERING)[number]]);
    if (n.op === 'neq' && nullable) return sql`(isNull(${col}) OR ${col} != ${value})`;
    return sql`${col} ${op} ${value}`;
  }

  #error(n: Compare): Sql {
    const col = this.#col('error');
    if (n.op === 'exists') return sql`isNotNull(${col})`;
    const v = this.#one(n.value!);
    if (n.op === 'search') return contains(sql`ifNull(${col}, '')`, this.#string(v));
    if (n.op === 'like') return sql`like(ifNull(${col}, ''), ${this.#string(v)})`;
    // eq(error, null) / eq(error, false): no error; eq(error, true) / neq(error, null): errored.
    if (v.kind === 'null' || v.kind === 'bool') {
      const errored = v.kind === 'bool' ? v.value : false;
      return (n.op === 'eq') === errored ? sql`isNotNull(${col})` : sql`isNull(${col})`;
    }
    const text = this.#string(v);
    return n.op === 'eq' ? sql`${col} = ${text}` : sql`(isNull(${col}) OR ${col} != ${text})`;
  }

  #latency(n: Compare): Sql {
    this.columns.add('start_time');
    this.columns.add('end_time');
    if (n.op === 'exists') return raw('isNotNull(end_time)');
    const value = this.#one(n.value!);
    const micros = Math.round(this.#duration(value) * 1e6);
    if (!Number.isSafeInteger(micros)) this.#fail('duration out of range', value.pos);
    // A run that has not ended has no latency: no comparison holds for it.
    return sql`ifNull(end_time - start_time ${raw(SQL_OP[n.op as (typeof ORDERING)[number]])} ${micros}, 0)`;
  }

  #tags(n: Compare): Sql {
    const col = this.#col('tags');
    if (n.op === 'exists') return sql`notEmpty(${col})`;
    if (n.op === 'in') {
      const items = this.#list(n.value!).map((s) => this.#string(s));
      return items.length === 0 ? raw('0') : sql`hasAny(${col}, ${items})`;
    }
    const text = this.#string(this.#one(n.value!));
    if (n.op === 'search') return sql`arrayExists(tg -> ${contains(raw('tg'), text)}, ${col})`;
    if (n.op === 'like') return sql`arrayExists(tg -> like(tg, ${text}), ${col})`;
    return n.op === 'neq' ? sql`NOT has(${col}, ${text})` : sql`has(${col}, ${text})`;
  }

  /** has(metadata, '{"k": "v", …}'): every pair is an entry of the run's metadata. */
  #metadataObject(n: Compare): Sql {
    const v = this.#one(n.value!);
    const text = this.#string(v);
    let object: unknown;
    try {
      object = JSON.parse(text);
    } catch {
      this.#fail('has(metadata, …) expects a JSON object in a string, e.g. \'{"user": "alice"}\'', v.pos);
    }
    if (typeof object !== 'object' || object === null || Array.isArray(object))
      this.#fail('has(metadata, …) expects a JSON object', v.pos);
    this.columns.add('metadata_keys');
    this.columns.add('metadata_values');
    const entries = Object.entries(object).map(
      ([k, value]) =>
        sql`arrayExists((mk, mv) -> mk = ${k} AND mv = ${typeof value === 'string' ? value : JSON.stringify(value)}, metadata_keys, metadata_values)`,
    );
    return entries.length === 0 ? raw('1') : sql`(${join(entries, ' AND ')})`;
  }

  /** A key comparison, a value comparison, or a pair of them about the same metadata entry. */
  #metadata(key: Compare | null, value: Compare | null): Sql {
    this.columns.add('metadata_keys');
    this.columns.add('metadata_values');
    if (key && value)
      return sql`arrayExists((mk, mv) -> ${this.#entry(key, 'mk')} AND ${this.#entry(value, 'mv')}, metadata_keys, metadata_values)`;
    const n = (key ?? value)!;
    const array = raw(key ? 'metadata_keys' : 'metadata_values');
    const v = raw(key ? 'mk' : 'mv');
    // neq alone: no entry has it (LangSmith: "metadata does not contain the key").
    if (n.op === 'neq') return sql`NOT arrayExists(${v} -> ${this.#entry({ ...n, op: 'eq' }, v.text)}, ${array})`;
    return sql`arrayExists(${v} -> ${this.#entry(n, v.text)}, ${array})`;
  }

  /** One metadata key or value comparison against the lambda variable `v`. */
  #entry(n: Compare, name: string): Sql {
    const v = raw(name);
    if (n.op === 'in')
      return inList(
        v,
        this.#list(n.value!).map((s) => sql`${this.#metadataText(s)}`),
      );
    const lit = this.#one(n.value!);
    if (n.op === 'like') return sql`like(${v}, ${this.#string(lit)})`;
    if (n.op === 'search') return contains(v, this.#string(lit));
    const op = raw(SQL_OP[n.op as (typeof ORDERING)[number]]);
    // Values are stored as text (non-strings as JSON): numbers compare as numbers.
    if (lit.kind === 'number') return sql`ifNull(toFloat64OrNull(${v}) ${op} ${lit.value}, 0)`;
    return sql`${v} ${op} ${this.#metadataText(lit)}`;
  }

  #metadataText(s: Scalar): string {
    if (s.kind === 'string') return s.value;
    if (s.kind === 'null') this.#fail('metadata keys and values are never null', s.pos);
    return JSON.stringify(s.value);
  }

  /** Runs with a feedback item matching the key comparison and/or the score comparison. */
  #feedback(key: Compare | null, score: Compare | null): Sql {
    const conds: Sql[] = [];
    let negate = false;
    if (key) {
      if (key.op === 'neq') negate = true; // neq(feedback_key, k) alone: no feedback with key k
      if (key.op === 'in')
        conds.push(
          inList(
            raw('key'),
            this.#list(key.value!).map((s) => sql`${this.#string(s)}`),
          ),
        );
      else conds.push(sql`key = ${this.#string(this.#one(key.value!))}`);
    }
    if (score) {
      const v = this.#one(score.value!);
      const number = v.kind === 'bool' ? (v.value ? 1 : 0) : this.#number(v);
      conds.push(sql`ifNull(score ${raw(SQL_OP[score.op as (typeof ORDERING)[number]])} ${number}, 0)`);
    }
    const s = this.#scope;
    const items = sql`SELECT run_id FROM ${ident(s.feedbackTable)} FINAL WHERE tenant_id = toUUID(${s.tenantId}) AND deleted = 0 AND ${join(conds, ' AND ')}`;
    return negate ? sql`${this.#col('id')} NOT IN (${items})` : sql`${this.#col('id')} IN (${items})`;
  }

  /** search("…"): the text, case-insensitively, in the name, inputs, outputs, extra (metadata), error or a tag. */
  #fullTextSearch(text: string): Sql {
    const parts = ['name', 'inputs', 'outputs', 'extra'].map((c) => contains(this.#col(c), text));
    parts.push(
      contains(sql`ifNull(${this.#col('error')}, '')`, text),
      sql`arrayExists(tg -> ${contains(raw('tg'), text)}, ${this.#col('tags')})`,
    );
    return sql`(${join(parts, ' OR ')})`;
  }

  // Values, each checked against what its field takes.
  #one(v: Literal): Scalar {
    if (v.kind === 'list') this.#fail('expected a single value, not a list (use in(field, [...]) for several)', v.pos);
    return v;
  }

  #list(v: Literal): Scalar[] {
    if (v.kind !== 'list') this.#fail('in() expects a list, e.g. ["a", "b"]', v.pos);
    if (v.items.length > 1000) this.#fail('lists hold at most 1000 values', v.pos);
    return v.items;
  }

  #string(v: Literal | null): string {
    const s = this.#one(v!);
    if (s.kind !== 'string')
      this.#fail(`expected a quoted string, found ${s.kind === 'null' ? 'null' : String(s.value)}`, s.pos);
    return s.value;
  }

  #uuid(s: Scalar): string {
    const id = s.kind === 'string' ? toUuid(s.value) : null;
    if (!id)
      this.#fail(
        `expected a UUID in quotes, found ${s.kind === 'string' ? JSON.stringify(s.value) : s.kind === 'null' ? 'null' : String(s.value)}`,
        s.pos,
      );
    return id;
  }

  #time(s: Scalar): number {
    if (s.kind === 'string') {
      try {
        const micros = parseTimestampMicros(s.value, 'time');
        if (micros !== null) return micros;
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
      }
    }
    return this.#fail(
      `expected an ISO 8601 timestamp in quotes such as "2024-07-15T12:34:56Z", found ${s.kind === 'string' ? JSON.stringify(s.value) : s.kind}`,
      s.pos,
    );
  }

  #number(s: Scalar): number {
    if (s.kind === 'number') return s.value;
    const n =
      s.kind === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(s.value) ? Number(s.value) : NaN;
    if (!Number.isFinite(n))
      this.#fail(`expected a number, found ${s.kind === 'string' ? JSON.stringify(s.value) : s.kind}`, s.pos);
    return n;
  }

  /** Seconds: a number, or a string like "5s", "500ms", "2m", "1h", "1.5". */
  #duration(s: Scalar): number {
    if (s.kind === 'number') return s.value;
    const m = s.kind === 'string' ? /^\s*(\d+\.?\d*|\.\d+)\s*(ms|s|m|h)?\s*$/.exec(s.value) : null;
    if (!m)
      this.#fail(
        `expected a duration such as 5, "5s", "500ms", "2m" or "1h", found ${s.kind === 'string' ? JSON.stringify(s.value) : s.kind}`,
        s.pos,
      );
    const unit = { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2] ?? 's']!;
    return Number(m[1]) * unit;
  }

  #bool(s: Scalar): boolean {
    if (s.kind === 'bool') return s.value;
    if (s.kind === 'number' && (s.value === 0 || s.value === 1)) return s.value === 1;
    if (s.kind === 'string' && /^(true|false)$/i.test(s.value)) return s.value.toLowerCase() === 'true';
    return this.#fail(
      `expected true or false, found ${s.kind === 'string' ? JSON.stringify(s.value) : s.kind === 'null' ? 'null' : String(s.value)}`,
      s.pos,
    );
  }
}

/** `filter`: a condition on each run. */
export function compileRunFilter(node: FilterNode, scope: FilterScope, where = 'filter'): CompiledCondition {
  const c = new Compiler(scope, where);
  const text = c.node(node);
  return { sql: text, columns: c.columns };
}

/** `trace_filter` (root: true): the trace's root run matches; `tree_filter`: some run of the trace matches. */
export function compileTraceCondition(
  node: FilterNode,
  scope: FilterScope,
  options: { root: boolean; where: string },
): CompiledCondition {
  const inner = compileRunFilter(node, scope, options.where);
  // Key columns in PREWHERE (the primary index narrows the read to them; safe under FINAL).
  const prewhere = [sql`tenant_id = toUUID(${scope.tenantId})`];
  if (scope.sessionIds)
    prewhere.push(scope.sessionIds.length ? sql`session_id IN (${uuidSet(scope.sessionIds)})` : raw('0'));
  if (options.root) prewhere.push(raw('is_root = 1'));
  // The traces that matter bound the subquery: by the span of their runs' start times (a range
  // of the key) when the caller knows it, else by the places of their runs (a lookup per run).
  if (scope.traceSpan)
    prewhere.push(sql`start_time >= ${scope.traceSpan.from} AND start_time <= ${scope.traceSpan.to}`);
  else if (scope.traceIds) prewhere.push(runsOfTraces(scope.runKeysTable, scope.tenantId, uuidSet(scope.traceIds)));
  const where = [raw('has_post = 1')];
  where.push(inner.sql);
  const table = scope.exact ? sql`${ident(scope.runsTable)} FINAL` : ident(scope.runsTable);
  return {
    sql: sql`trace_id IN (SELECT trace_id FROM ${table} PREWHERE ${join(prewhere, ' AND ')} WHERE ${join(where, ' AND ')})`,
    columns: new Set(['trace_id']),
  };
}

/**
 * The threads a run must name to match `filter`, when it says so (an eq or in on thread_id, alone,
 * in an and(…), or in every branch of an or(…)); null when a run of any thread, or of none, may
 * match. Reads may then take the runs of those threads alone (run_threads).
 */
export function filterThreadIds(node: FilterNode): string[] | null {
  switch (node.kind) {
    case 'and': {
      for (const a of node.args) {
        const ids = filterThreadIds(a);
        if (ids) return ids;
      }
      return null;
    }
    case 'or': {
      const all = new Set<string>();
      for (const a of node.args) {
        const ids = filterThreadIds(a);
        if (!ids) return null;
        for (const id of ids) all.add(id);
      }
      return node.args.length ? [...all] : null;
    }
    case 'not':
      return null;
    case 'compare': {
      if (node.field?.name !== 'thread_id' || !node.value) return null;
      const values =
        node.op === 'eq' ? [node.value] : node.op === 'in' && node.value.kind === 'list' ? node.value.items : null;
      // Only strings compare as written ('' means no thread: every run without one).
      if (!values || values.some((v) => v.kind !== 'string' || v.value === '')) return null;
      return [...new Set(values.map((v) => (v as { value: string }).value))];
    }
  }
}
