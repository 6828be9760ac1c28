// A revision's logs, as both `langgraph deploy` CLIs read them (`POST /v1/projects/{id}/revisions/
// {rid}/build_logs` and `…/deploy_logs`): the build log (what the deployer did, and what git, the
// install and the build commands wrote) and the deploy log (what its agent server wrote).
//
// The deployment worker hands every chunk of output here; lines are kept per revision and kind
// (the newest MAX_LINES, each cut at MAX_LINE_CHARS) and written to the object store every
// FLUSH_MS while they change, as one JSON-lines object each, so any control-plane replica answers
// from there, during the build as after it. A server's pino JSON lines keep their level and
// message; other lines are INFO (stdout) or their stderr level (ERROR, or WARNING for a warning).
import type { BlobStore } from '../../platform/blobStore.ts';
import type { Logger } from '../../platform/logger.ts';

export type LogKind = 'build' | 'deploy';
export type LogStream = 'stdout' | 'stderr' | 'deployer';

export interface LogEntry {
  /** Stable across reads: `<kind>-<sequence>`. */
  id: string;
  /** Milliseconds since the epoch (what the CLIs format). */
  timestamp: number;
  level: 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';
  message: string;
}

export interface LogQuery {
  limit: number;
  order: 'asc' | 'desc';
  /** From a previous answer's next_offset. */
  offset?: number;
  level?: string;
  query?: string;
  startTime?: number;
  endTime?: number;
}

const MAX_LINES = 10_000;
const MAX_LINE_CHARS = 8_192;
const FLUSH_MS = 1_000;

/** Where a revision's log of a kind lives in the bucket. */
export const revisionLogKey = (tenantId: string, deploymentId: string, revisionId: string, kind: LogKind): string =>
  `${tenantId}/deployment-logs/${deploymentId}/${revisionId}/${kind}.jsonl`;

const PINO_LEVELS: Record<number, LogEntry['level']> = {
  10: 'DEBUG',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARNING',
  50: 'ERROR',
  60: 'CRITICAL',
};

/** A line's level and message: a pino JSON line's own, else by its stream. */
export function classify(line: string, stream: LogStream): { level: LogEntry['level']; message: string } {
  if (line.startsWith('{')) {
    try {
      const parsed = JSON.parse(line) as { level?: number; msg?: string };
      if (typeof parsed.level === 'number' && typeof parsed.msg === 'string') {
        const { level, time: _time, pid: _pid, hostname: _host, msg, ...rest } = parsed as Record<string, unknown>;
        const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
        return { level: PINO_LEVELS[level as number] ?? 'INFO', message: `${msg as string}${extra}` };
      }
    } catch {
      // not JSON after all
    }
  }
  if (stream !== 'stderr') return { level: 'INFO', message: line };
  return { level: /^\s*(npm )?warn/i.test(line) ? 'WARNING' : 'ERROR', message: line };
}

interface Log {
  key: string;
  entries: LogEntry[];
  next: number;
  /** Unfinished last line per stream. */
  partial: Map<LogStream, string>;
  dirty: boolean;
}

export class RevisionLogs {
  readonly #objects: Pick<BlobStore, 'putObject' | 'getObjectText' | 'ensureBucket'>;
  readonly #logger: Logger;
  readonly #logs = new Map<string, Log>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(objects: Pick<BlobStore, 'putObject' | 'getObjectText' | 'ensureBucket'>, logger: Logger) {
    this.#objects = objects;
    this.#logger = logger;
  }

  /** Takes a chunk of a revision's output; whole lines become entries. */
  append(
    ref: { tenantId: string; deploymentId: string; revisionId: string },
    kind: LogKind,
    stream: LogStream,
    text: string,
    now = Date.now(),
  ): void {
    const key = revisionLogKey(ref.tenantId, ref.deploymentId, ref.revisionId, kind);
    let log = this.#logs.get(key);
    if (!log) this.#logs.set(key, (log = { key, entries: [], next: 0, partial: new Map(), dirty: false }));
    const lines = `${log.partial.get(stream) ?? ''}${text}`.split('\n');
    log.partial.set(stream, lines.pop()!.slice(-MAX_LINE_CHARS));
    for (const raw of lines) {
      const line = raw.trimEnd();
      if (line === '') continue;
      const { level, message } = classify(line.slice(0, MAX_LINE_CHARS), stream);
      log.entries.push({ id: `${kind}-${log.next++}`, timestamp: now, level, message });
    }
    if (log.entries.length > MAX_LINES) log.entries.splice(0, log.entries.length - MAX_LINES);
    log.dirty = true;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, FLUSH_MS);
  }

  /** Stops keeping a revision's logs in memory (they stay in the store); after a last flush. */
  async forget(ref: { tenantId: string; deploymentId: string; revisionId: string }): Promise<void> {
    await this.flush();
    for (const kind of ['build', 'deploy'] as const)
      this.#logs.delete(revisionLogKey(ref.tenantId, ref.deploymentId, ref.revisionId, kind));
  }

  /** Writes every log that changed since its last write. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      const dirty = [...this.#logs.values()].filter((l) => l.dirty);
      if (dirty.length === 0) return;
      await this.#objects.ensureBucket().catch(() => undefined);
      for (const log of dirty) {
        log.dirty = false;
        const body = log.entries.map((e) => JSON.stringify(e)).join('\n');
        await this.#objects.putObject(log.key, body, 'application/x-ndjson').catch((err: unknown) => {
          log.dirty = true; // the next flush tries again
          this.#logger.warn({ err, key: log.key }, 'cannot write a revision log');
        });
      }
    });
    return this.#flushing;
  }

  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  /** A page of a revision's log, filtered and ordered; next_offset when there is more. */
  async read(
    ref: { tenantId: string; deploymentId: string; revisionId: string },
    kind: LogKind,
    q: LogQuery,
  ): Promise<{ logs: LogEntry[]; next_offset: string | null }> {
    const text = await this.#objects.getObjectText(
      revisionLogKey(ref.tenantId, ref.deploymentId, ref.revisionId, kind),
    );
    const all = (text ?? '')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LogEntry);
    return page(all, q);
  }
}

const LEVEL_RANK: Record<string, number> = { DEBUG: 10, INFO: 20, WARNING: 30, WARN: 30, ERROR: 40, CRITICAL: 50 };

/** Filters (level and above, text, time range), orders, and cuts a page at `offset`. */
export function page(entries: LogEntry[], q: LogQuery): { logs: LogEntry[]; next_offset: string | null } {
  const min = q.level ? (LEVEL_RANK[q.level.toUpperCase()] ?? 0) : 0;
  const needle = q.query?.toLowerCase();
  const matching = entries.filter(
    (e) =>
      (LEVEL_RANK[e.level] ?? 0) >= min &&
      (needle === undefined || e.message.toLowerCase().includes(needle)) &&
      (q.startTime === undefined || e.timestamp >= q.startTime) &&
      (q.endTime === undefined || e.timestamp <= q.endTime),
  );
  if (q.order === 'desc') matching.reverse();
  const offset = q.offset ?? 0;
  const logs = matching.slice(offset, offset + q.limit);
  const end = offset + logs.length;
  return { logs, next_offset: end < matching.length || q.order === 'asc' ? String(end) : null };
}
