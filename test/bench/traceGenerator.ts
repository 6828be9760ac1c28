// Builds realistic ingestion traffic ahead of time, the way the official JS client (npm
// `langsmith`) sends it: traces of 10-30 runs (a root chain, steps, llm/tool/retriever
// leaves) with UUIDv7 ids and consistent trace_id / parent_run_id / dotted_order; several
// traces in flight at once; the queue drained into POST /runs/multipart batches of up to
// 100 operations; per run the parts `post.<id>`, `post.<id>.inputs`, `.outputs`, `.extra`
// with `Content-Type: application/json; length=N`. A root is posted when it starts and
// patched when it ends (a separate operation unless both fall into the same batch, where
// the client merges them); the other runs finish quickly and are posted once, complete.
//
// Alongside every body it builds the Kafka events the API appends for it (one
// RunOpsAppended per trace, Avro-encoded with the same registry), for the raw ceiling.
//
// The optional shape options (thread pool, start times spread back in time, errors, nesting,
// leaf durations, usage_metadata) are for the query benchmark's data set; without them the
// traffic is the ingest benchmark's, draw for draw.
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { encodeEvent } from '../../schemas/registry.ts';
import type { RunOp } from '../../schemas/events.generated.ts';
import { projectIdForName } from '../../projections/projects/projectRegistry.ts';
import { formatDottedTimestamp, parseTimestampMicros } from '../../platform/time.ts';

export interface EncodedMessage {
  key: string;
  value: Buffer;
  headers: Record<string, string>;
}

export interface Batch {
  body: Buffer;
  contentType: string;
  /** Operations in the body (posts + patches after the client's merge). */
  ops: number;
  /** Run ids posted in this body: each is one new row in the read model. */
  postedRunIds: string[];
  /** Root runs posted in this body: one per new trace. */
  rootIds: string[];
  /** The last run posted in this body, for freshness sampling. */
  sample: { runId: string; traceId: string } | null;
  /** What the API appends for this body (RunOpsAppended per trace), for the raw Kafka ceiling. */
  events: EncodedMessage[];
}

export interface TrafficOptions {
  tenantId: string;
  sessionName: string;
  /** Traces in flight at once (their operations interleave in the client's queue). */
  interleave: number;
  /** Operations per batch: the client's size_limit (100 unless /info says otherwise). */
  batchOps: number;
  minRuns: number;
  maxRuns: number;
  /** Deterministic traffic for a given seed (ids are still fresh UUIDv7s). */
  seed: number;
  /**
   * Traces belong to one of this many threads: the root's `extra.metadata.thread_id` is
   * `thread-<1..threads>` and its descendants inherit it. Default: every run names a random one
   * of 500 on its own.
   */
  threads?: number;
  /** Traces start anywhere in the last `spreadMs` (default: within the last minute). */
  spreadMs?: number;
  /** Share of runs that fail (an `error` on their complete post or patch); default 0. */
  errorRate?: number;
  /** Chain levels between the root and the leaves, 1 to `nesting` per branch; default 1. */
  nesting?: number;
  /** Duration of a leaf run in milliseconds; default [1, 40]. */
  leafMs?: readonly [number, number];
  /** LLM outputs also carry `usage_metadata` (input/output/total tokens), as wrapped SDK clients send. */
  usageMetadata?: boolean;
}

type Json = Record<string, unknown>;

interface Run {
  id: string;
  traceId: string;
  parentRunId: string | null;
  dottedOrder: string;
  name: string;
  runType: string;
  startMs: number;
  endMs: number;
  inputs: Json;
  outputs: Json;
  extra: Json;
  tags: string[];
  error: string | null;
}

/** One operation as the client queues it: the run as JSON with the split-out fields. */
interface Op {
  kind: 'post' | 'patch';
  run: Run;
}

// A small deterministic PRNG (mulberry32): the same seed gives the same traffic shape.
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the of and to in is for on that with as by this be are from at or an it not which have has was were can will more all ' +
  'retrieval agent model prompt answer question context document search tool call result token latency trace span chain ' +
  'customer order invoice refund shipping account policy summary report table query index vector embedding score'
).split(' ');

const TOOL_NAMES = ['search_docs', 'get_weather', 'lookup_order', 'calculator', 'sql_query', 'send_email'];
const STEP_NAMES = [
  'RunnableSequence',
  'RunnableParallel',
  'AgentExecutor',
  'RetrievalQA',
  'ChatPromptTemplate',
  'StrOutputParser',
];
const ERRORS = [
  'RateLimitError: 429 Too Many Requests',
  'TimeoutError: request timed out',
  "ValueError: could not parse the model's output",
  'ToolException: upstream returned 503',
];

export class TrafficGenerator {
  readonly #options: TrafficOptions;
  readonly #random: () => number;
  readonly #sessionId: string;
  readonly #runtime: Json;

  constructor(options: TrafficOptions) {
    this.#options = options;
    this.#random = prng(options.seed);
    this.#sessionId = projectIdForName(options.tenantId, options.sessionName);
    this.#runtime = {
      library: 'langsmith',
      runtime: 'node',
      sdk: 'langsmith-js',
      sdk_version: '0.12.0',
      runtime_version: process.versions.node,
      platform: 'linux',
      arch: 'x64',
      langchain_version: '1.0.4',
    };
  }

  #int(min: number, max: number): number {
    return min + Math.floor(this.#random() * (max - min + 1));
  }

  #pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.#random() * list.length)]!;
  }

  #text(minBytes: number, maxBytes: number): string {
    const target = this.#int(minBytes, maxBytes);
    let out = '';
    while (out.length < target) out += (out ? ' ' : '') + this.#pick(WORDS);
    return out;
  }

  #payloads(runType: string): { inputs: Json; outputs: Json } {
    switch (runType) {
      case 'llm': {
        const inputs = {
          messages: [
            [
              {
                lc: 1,
                type: 'constructor',
                id: ['langchain_core', 'messages', 'HumanMessage'],
                kwargs: { content: this.#text(150, 400) },
              },
            ],
          ],
        };
        const generations = [
          [{ text: this.#text(100, 300), generation_info: { finish_reason: 'stop' }, type: 'ChatGeneration' }],
        ];
        const prompt = this.#int(50, 900);
        const completion = this.#int(10, 300);
        const outputs: Json = {
          generations,
          llm_output: {
            token_usage: { prompt_tokens: prompt, completion_tokens: completion },
            model_name: 'gpt-4o-mini',
          },
        };
        if (this.#options.usageMetadata)
          outputs.usage_metadata = {
            input_tokens: prompt,
            output_tokens: completion,
            total_tokens: prompt + completion,
          };
        return { inputs, outputs };
      }
      case 'tool':
        return { inputs: { input: this.#text(40, 160) }, outputs: { output: this.#text(120, 400) } };
      case 'retriever':
        return {
          inputs: { query: this.#text(30, 100) },
          outputs: {
            documents: [0, 1, 2].map((i) => ({
              page_content: this.#text(60, 140),
              metadata: { source: `doc-${i}.md` },
            })),
          },
        };
      default:
        return {
          inputs: { question: this.#text(80, 250), chat_history: [] },
          outputs: { output: this.#text(100, 350) },
        };
    }
  }

  /** One trace as its runs, in creation order (parents before children). */
  #trace(): Run[] {
    const { minRuns, maxRuns, threads, spreadMs, errorRate = 0, nesting = 1, leafMs = [1, 40] } = this.#options;
    const count = this.#int(minRuns, maxRuns);
    const t0 = spreadMs ? Date.now() - 60_000 - this.#int(0, spreadMs) : Date.now() - 60_000 + this.#int(0, 30_000);
    const threadId = threads ? `thread-${this.#int(1, threads)}` : null;
    let order = 0;
    let clock = t0;
    const runs: Run[] = [];
    // The JS client's clock has milliseconds; it fills the last three microsecond digits with
    // the execution order.
    const dotted = (startMs: number) => formatDottedTimestamp(startMs * 1000 + (order++ % 1000));
    const make = (parent: Run | null, name: string, runType: string, depth: number): Run => {
      const startMs = clock;
      // The client makes the id when the run starts: its UUIDv7 time is the start time.
      const id = uuidv7({ msecs: startMs });
      clock += this.#int(0, 3);
      const { inputs, outputs } = this.#payloads(runType);
      const run: Run = {
        id,
        traceId: parent ? parent.traceId : id,
        parentRunId: parent ? parent.id : null,
        dottedOrder: (parent ? parent.dottedOrder + '.' : '') + dotted(startMs) + id,
        name,
        runType,
        startMs,
        endMs: startMs,
        inputs,
        outputs,
        extra: {
          runtime: this.#runtime,
          metadata: {
            ls_run_depth: depth,
            revision_id: 'bench-1',
            thread_id: threadId ?? `thread-${this.#int(1, 500)}`,
          },
        },
        tags: depth === 1 ? [`seq:step:${runs.length}`] : [],
        error: errorRate > 0 && this.#random() < errorRate ? this.#pick(ERRORS) : null,
      };
      runs.push(run);
      return run;
    };
    const root = make(null, 'AgentExecutor', 'chain', 0);
    while (runs.length < count) {
      // A branch: chain steps nested 1 to `nesting` deep, then a few leaves under the deepest.
      const levels = nesting > 1 ? this.#int(1, nesting) : 1;
      let step = root;
      for (let depth = 1; depth <= levels && runs.length < count; depth++)
        step = make(step, this.#pick(STEP_NAMES), 'chain', depth);
      const leaves = Math.min(this.#int(1, 5), count - runs.length);
      for (let i = 0; i < leaves; i++) {
        const kind = this.#pick(['llm', 'llm', 'tool', 'retriever'] as const);
        make(
          step,
          kind === 'llm' ? 'ChatOpenAI' : kind === 'tool' ? this.#pick(TOOL_NAMES) : 'VectorStoreRetriever',
          kind,
          levels + 1,
        );
      }
    }
    // End times: leaves after their start, parents after their last child.
    const childrenEnd = new Map<string, number>();
    for (let i = runs.length - 1; i >= 0; i--) {
      const run = runs[i]!;
      const childEnd = childrenEnd.get(run.id);
      run.endMs =
        childEnd === undefined
          ? run.startMs + this.#int(leafMs[0], leafMs[1])
          : Math.max(run.startMs, childEnd) + this.#int(1, 40);
      if (run.parentRunId) childrenEnd.set(run.parentRunId, Math.max(childrenEnd.get(run.parentRunId) ?? 0, run.endMs));
    }
    return runs;
  }

  /** The client's queue for a trace: root post (no outputs yet), its descendants complete, root patch. */
  #traceOps(): Op[] {
    const [root, ...rest] = this.#trace();
    return [
      { kind: 'post', run: root! },
      ...rest.map((run) => ({ kind: 'post' as const, run })),
      { kind: 'patch', run: root! },
    ];
  }

  /** Builds batches holding at least `minRuns` posted runs. */
  batches(minRuns: number): Batch[] {
    const { interleave, batchOps } = this.#options;
    const inFlight: Op[][] = [];
    const queue: Op[] = [];
    let posted = 0;
    // Interleave the traces in flight, as concurrent requests of an app would.
    while (posted < minRuns || inFlight.length > 0) {
      while (inFlight.length < interleave && posted < minRuns) {
        const ops = this.#traceOps();
        posted += ops.length - 1;
        inFlight.push(ops);
      }
      const i = Math.floor(this.#random() * inFlight.length);
      const trace = inFlight[i]!;
      // A few operations at a time from one trace: runs finish in bursts.
      for (let n = this.#int(1, 4); n > 0 && trace.length > 0; n--) queue.push(trace.shift()!);
      if (trace.length === 0) inFlight.splice(i, 1);
    }
    const out: Batch[] = [];
    for (let i = 0; i < queue.length; i += batchOps) out.push(this.#batch(queue.slice(i, i + batchOps)));
    return out;
  }

  /** Serializes one drained queue slice as the client does, plus the events the API would append. */
  #batch(ops: Op[]): Batch {
    // The client merges a post and a patch of the same run found in one batch into one post.
    const patched = new Set(ops.filter((o) => o.kind === 'patch').map((o) => o.run.id));
    const posted = new Set(ops.filter((o) => o.kind === 'post').map((o) => o.run.id));
    const final: Array<{ kind: 'post' | 'patch'; run: Run; complete: boolean }> = [];
    for (const o of ops) {
      if (o.kind === 'post')
        final.push({ kind: 'post', run: o.run, complete: o.run.parentRunId !== null || patched.has(o.run.id) });
      else if (!posted.has(o.run.id)) final.push({ kind: 'patch', run: o.run, complete: true });
    }
    // Posts first, then patches (the client's part order).
    final.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'post' ? -1 : 1));

    const boundary = '----LangSmithFormBoundary' + Math.floor(this.#random() * 2 ** 52).toString(36);
    const chunks: Buffer[] = [];
    const part = (name: string, json: string) => {
      const bytes = Buffer.from(json);
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: application/json; length=${bytes.length}\r\n\r\n`,
        ),
        bytes,
        Buffer.from('\r\n'),
      );
    };
    const opsByTrace = new Map<string, RunOp[]>();
    for (const { kind, run, complete } of final) {
      const startTime = new Date(run.startMs).toISOString().replace('Z', '000Z');
      const main: Json =
        kind === 'post'
          ? {
              id: run.id,
              name: run.name,
              start_time: startTime,
              ...(complete ? { end_time: run.endMs } : {}),
              run_type: run.runType,
              session_name: this.#options.sessionName,
              child_runs: [],
              parent_run_id: run.parentRunId ?? undefined,
              trace_id: run.traceId,
              dotted_order: run.dottedOrder,
              tags: run.tags,
              ...(complete && run.error ? { error: run.error } : {}),
            }
          : {
              id: run.id,
              name: run.name,
              run_type: run.runType,
              start_time: startTime,
              end_time: run.endMs,
              parent_run_id: run.parentRunId ?? undefined,
              dotted_order: run.dottedOrder,
              trace_id: run.traceId,
              tags: run.tags,
              session_name: this.#options.sessionName,
              ...(run.error ? { error: run.error } : {}),
            };
      const inputs = kind === 'post' ? JSON.stringify(run.inputs) : null;
      const outputs = complete ? JSON.stringify(run.outputs) : null;
      const extra = JSON.stringify(run.extra);
      part(`${kind}.${run.id}`, JSON.stringify(main));
      if (inputs !== null) part(`${kind}.${run.id}.inputs`, inputs);
      if (outputs !== null) part(`${kind}.${run.id}.outputs`, outputs);
      part(`${kind}.${run.id}.extra`, extra);

      // What runIngestor builds for this operation.
      const list = opsByTrace.get(run.traceId) ?? [];
      list.push({
        op: kind,
        run_id: run.id,
        session_id: this.#sessionId,
        parent_run_id: run.parentRunId,
        dotted_order: run.dottedOrder,
        name: run.name,
        run_type: run.runType,
        start_time: parseTimestampMicros(startTime, 'start_time'),
        end_time: kind === 'patch' || complete ? run.endMs * 1000 : null,
        inputs,
        outputs,
        events: null,
        extra,
        serialized: null,
        error: complete ? run.error : null,
        tags: run.tags,
        reference_example_id: null,
        attachments: [],
      });
      opsByTrace.set(run.traceId, list);
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));

    const requestId = randomUUID();
    const receivedAt = Date.now() * 1000;
    const { tenantId } = this.#options;
    const events: EncodedMessage[] = [];
    for (const [traceId, traceOps] of opsByTrace) {
      const encoded = encodeEvent('RunOpsAppended', {
        tenant_id: tenantId,
        trace_id: traceId,
        request_id: requestId,
        received_at: receivedAt,
        ops: traceOps,
      });
      events.push({ key: `${tenantId}/${traceId}`, value: encoded.value, headers: encoded.headers });
    }
    const lastPost = final.filter((f) => f.kind === 'post').at(-1)?.run;
    return {
      body: Buffer.concat(chunks),
      contentType: `multipart/form-data; boundary=${boundary}`,
      ops: final.length,
      postedRunIds: final.filter((f) => f.kind === 'post').map((f) => f.run.id),
      rootIds: final.filter((f) => f.kind === 'post' && f.run.parentRunId === null).map((f) => f.run.id),
      sample: lastPost ? { runId: lastPost.id, traceId: lastPost.traceId } : null,
      events,
    };
  }
}
