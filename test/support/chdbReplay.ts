// Replays a recorded sequence of ClickHouse steps (test/support/clickHouseRecorder.ts) on
// current ClickHouse in-process (chdb, test/contract/chdb/replayOnChdb.py) and compares every
// answer with the one the recorded server (18.16) gave. Also the 18.16 side of the test's own
// steps (settling merges), which the Python script mirrors for chdb.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { compactRows, type ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, raw, sql, type Sql } from '../../platform/clickhouse/sql.ts';
import { run, type PythonEnv } from './pythonEnv.ts';
import { repoRoot } from './serviceProcess.ts';
import type { RecordedStatement, RecordedStep } from './clickHouseRecorder.ts';

const SCRIPT = join(repoRoot, 'test', 'contract', 'chdb', 'replayOnChdb.py');

export type ChdbAnswer = { ok: true; answer: Buffer } | { ok: false; error: string };

export interface ChdbReplay {
  /** chdb's ClickHouse version. */
  version: string;
  /** One answer per recorded step, in order. */
  answers: ChdbAnswer[];
}

/**
 * Runs every step on chdb in one session (one Python process), its clock in `timezone` as the
 * recorded server's was; `config`: a server config (XML) for the session, e.g. a cluster's remote_servers.
 */
export async function replayOnChdb(
  python: PythonEnv,
  steps: readonly RecordedStep[],
  timezone: string,
  config?: string,
): Promise<ChdbReplay> {
  const dir = join(repoRoot, '.local', 'chdb');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `steps-${process.pid}-${randomBytes(3).toString('hex')}.jsonl`);
  const lines = [JSON.stringify({ kind: 'session', timezone, ...(config ? { config } : {}) })];
  for (const s of steps)
    lines.push(
      JSON.stringify(
        s.kind === 'statement'
          ? { kind: s.kind, database: s.database, query: s.query, data: s.data, binary: s.binary }
          : s,
      ),
    );
  writeFileSync(file, lines.join('\n') + '\n');
  const env = { ...process.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' };
  const out = await run(python.python, [SCRIPT, file], env, 10 * 60_000);
  type Line = { ok: boolean; answer?: string; error?: string; version?: string };
  const results = out.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
  if (out.code !== 0 || results.length !== steps.length + 1) {
    const done = `${results.length - 1} of ${steps.length} steps`;
    throw new Error(`${SCRIPT} ${file} exited with ${out.code} after ${done}:\n${out.stderr.slice(-4000)}`);
  }
  rmSync(file); // kept only when the replay itself failed, to run it again by hand
  const answer = (r: Line): ChdbAnswer =>
    r.ok ? { ok: true, answer: Buffer.from(r.answer ?? '', 'base64') } : { ok: false, error: String(r.error) };
  return { version: String(results[0]!.version), answers: results.slice(1).map(answer) };
}

/** The output format a statement asks for (its trailing FORMAT clause); null when it returns nothing (DDL, inserts). */
export function outputFormat(s: Pick<RecordedStatement, 'query' | 'data'>): string | null {
  if (s.data !== null) return null;
  return /\bFORMAT\s+([A-Za-z]+)\s*$/.exec(s.query)?.[1] ?? null;
}

/** Text with string literals and quoted names emptied, so keywords inside them do not count. */
const withoutLiterals = (text: string) => text.replace(/'(?:[^'\\]|\\.)*'/g, "''").replace(/`[^`]*`/g, '``');

/** The statement's own clauses: without literals and without anything in parentheses (subqueries, lambdas). */
function topLevel(query: string): string {
  let text = withoutLiterals(query);
  for (let prev = ''; prev !== text; ) [prev, text] = [text, text.replace(/\([^()]*\)/g, '')];
  return text;
}

/** How a statement's rows compare: in order (it orders them), as a set, or only by number (it takes any n of them). */
export function rowOrder(query: string): 'ordered' | 'unordered' | 'anyOf' {
  const text = topLevel(query);
  if (/\bORDER\s+BY\b/i.test(text)) return 'ordered';
  return /\bLIMIT\b/i.test(text) ? 'anyOf' : 'unordered';
}

/** A statement's shape: its text with values (strings, numbers) and replay stamps taken out, whitespace folded. */
export function statementShape(query: string): string {
  return query
    .replace(/'(?:[^'\\]|\\.)*'/g, '?')
    .replace(/_(replay|replaced)_\d+/g, '_$1_N')
    .replace(/\b\d+(\.\d+)?([eE][-+]?\d+)?\b/g, '?')
    .replace(/\?(\s*,\s*\?)+/g, '?…')
    .replace(/(\(toUUID\(\?\), toUUID\(\?\)\)(, )?)+/g, '(toUUID(?), toUUID(?))…')
    .replace(/(toUUID\(\?\)(, )?)+/g, 'toUUID(?)…')
    .replace(/\s+/g, ' ')
    .trim();
}

const FLOAT_TOLERANCE = 1e-9;

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number')
    return a === b || Math.abs(a - b) <= FLOAT_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const [ka, kb] = [Object.keys(a), Object.keys(b)];
    const [ra, rb] = [a as Record<string, unknown>, b as Record<string, unknown>];
    return ka.join('\0') === kb.join('\0') && ka.every((k) => sameValue(ra[k], rb[k]));
  }
  return a === b;
}

/** The rows of a JSONEachRow or JSONCompact answer (as ClickHouseClient.query reads them). */
const parseRows = (bytes: Buffer, format: string): Record<string, unknown>[] =>
  format === 'JSONCompact'
    ? compactRows(bytes.toString('utf8'))
    : bytes
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);

const show = (v: unknown) => JSON.stringify(v)?.slice(0, 300);

/**
 * How current ClickHouse's rows (JSONEachRow, JSONCompact) differ from 18.16's, or null: the same columns in
 * the same order, the same values (64-bit integers are quoted by both; floats may differ in the
 * last digits), the same rows, in the same order where the statement orders them; where it
 * takes any n rows (LIMIT without ORDER BY), as many rows.
 */
export function rowsDiffer(
  expected: Buffer,
  actual: Buffer,
  order: ReturnType<typeof rowOrder>,
  format = 'JSONEachRow',
): string | null {
  const byText = (x: unknown, y: unknown) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1);
  const inOrder = (rows: Record<string, unknown>[]) => (order === 'ordered' ? rows : [...rows].sort(byText));
  const [want, got] = [inOrder(parseRows(expected, format)), inOrder(parseRows(actual, format))];
  if (want.length !== got.length)
    return `${got.length} rows instead of ${want.length}: ${show(got.slice(0, 3))} instead of ${show(want.slice(0, 3))}`;
  if (order === 'anyOf') return null;
  for (let i = 0; i < want.length; i++) {
    const [w, g] = [want[i]!, got[i]!];
    if (Object.keys(w).join(',') !== Object.keys(g).join(','))
      return `columns ${show(Object.keys(g))} instead of ${show(Object.keys(w))}`;
    for (const column of Object.keys(w))
      if (!sameValue(w[column], g[column]))
        return `row ${i}, ${column}: ${show(g[column])} instead of ${show(w[column])}`;
  }
  return null;
}

/** How current ClickHouse's answer to a statement differs from what 18.16 answered, or null when it does not. */
export function answerDiffers(step: RecordedStatement, answer: ChdbAnswer): string | null {
  const accepted = step.status === 200;
  if (accepted && !answer.ok) return `current ClickHouse rejects it: ${answer.error}`;
  if (!accepted && answer.ok)
    return `current ClickHouse accepts it; 18.16 rejected it: ${step.answer.toString('utf8').slice(0, 500)}`;
  if (!accepted || !answer.ok) return null; // rejected by both (what a caller does about it was recorded)
  // What runs on a server at a moment (the replay's wait for a table no query uses, the examples
  // projector's wait for its deletions) is no answer two servers share: that both take the
  // statement is what is checked.
  if (/\bsystem\.(processes|mutations)\b/.test(step.query)) return null;
  const format = outputFormat(step);
  if (format === null) return null;
  if (format === 'JSONEachRow' || format === 'JSONCompact')
    return rowsDiffer(step.answer, answer.answer, rowOrder(step.query), format);
  if (step.answer.equals(answer.answer)) return null;
  let at = 0;
  while (at < step.answer.length && step.answer[at] === answer.answer[at]) at++;
  return `${format} answers differ from byte ${at} (${answer.answer.length} bytes instead of ${step.answer.length})`;
}

// ---- the test's own steps on the recorded server (18.16); replayOnChdb.py does the same on chdb ----

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Merges every MergeTree table of the database into one part with no mutation pending, then
 * stops its merges (or leaves them running). Reads without FINAL see every unmerged version of a
 * row, so they answer alike on two servers only when both hold the same parts: merges are
 * stopped while data comes in, and tables settled where merges ran.
 */
export async function settleTables(ch: ClickHouseClient, database: string, stopMerges: boolean): Promise<void> {
  const tables = await ch.query<{ name: string }>(
    sql`SELECT name FROM system.tables WHERE database = ${database} AND engine LIKE '%MergeTree' ORDER BY name`,
  );
  const count = async (q: Sql) => Number((await ch.query<{ n: string }>(q))[0]?.n ?? 0);
  const name = (table: string) => raw(`${ident(database).text}.${ident(table).text}`);
  for (const { name: table } of tables) await ch.exec(sql`SYSTEM START MERGES ${name(table)}`);
  for (const { name: table } of tables) {
    // OPTIMIZE is a silent no-op while a background merge holds the parts: ask until one is left.
    for (let attempt = 1; ; attempt++) {
      await ch.exec(sql`OPTIMIZE TABLE ${name(table)} FINAL`);
      const parts = await count(
        sql`SELECT count() AS n FROM system.parts WHERE database = ${database} AND table = ${table} AND active`,
      );
      const pending = await count(
        sql`SELECT count() AS n FROM system.mutations WHERE database = ${database} AND table = ${table} AND NOT is_done`,
      );
      if (parts <= 1 && pending === 0) break;
      if (attempt > 600) throw new Error(`${database}.${table} did not settle into one part`);
      await sleep(50);
    }
    if (stopMerges) await ch.exec(sql`SYSTEM STOP MERGES ${name(table)}`);
  }
}

/** Waits until the database has no mutation pending. */
export async function awaitMutations(ch: ClickHouseClient, database: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const [pending] = await ch.query<{ n: string }>(
      sql`SELECT count() AS n FROM system.mutations WHERE database = ${database} AND NOT is_done`,
    );
    if (Number(pending?.n) === 0) return;
    if (attempt > 1200) throw new Error(`mutations of ${database} still pending`);
    await sleep(50);
  }
}
