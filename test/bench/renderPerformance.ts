// Renders docs/performance.md from bench/results/*.json (`npm run bench:docs`): per benchmark, the
// ratios of the measured path to the raw baseline measured in the same run first (they carry from
// one machine to another), the absolute figures second (they do not), each labelled with the
// machine, commit, date and load average of the run that measured them. The page says nothing the
// result files do not hold: a figure changes by running its benchmark again (which rewrites its
// file, results.ts) and rendering again; test/bench/renderPerformance.test.ts fails when the page
// and the files disagree. Earlier figures are in git's history of bench/results/.
//
// Each benchmark's rows are declared below: a value read from its JSON (or derived from two values
// of the same run, said so in the row), what it means, and its goal: issue 35's where it states
// one, else the benchmark's own target from its JSON (`targets` / `goals`).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repoRoot } from '../support/serviceProcess.ts';
import { RESULTS_DIR, type RecordedResult } from './results.ts';

export const PERFORMANCE_DOC = join(repoRoot, 'docs', 'performance.md');

type Json = Record<string, unknown>;

/** A goal: the bound and where it comes from; `met` is checked against the value. */
interface Goal {
  text: string;
  source: 'issue 35' | 'issue 37' | 'bench target';
  met: (value: number) => boolean;
}

interface Row {
  label: string;
  value: number | null;
  /** Digits after the point (ratios: 2). */
  digits?: number;
  unit?: string;
  meaning?: string;
  goal?: Goal | null;
}

interface BenchSpec {
  bench: string;
  title: string;
  /** What the benchmark measures and against what, in a sentence or two. */
  about: string;
  ratios: (r: Json) => Row[];
  figures: (r: Json) => Row[];
  /** The command that writes its result, when not `npm run bench:<bench>`. */
  command?: string;
}

/** The number at a dotted path of a result, null when absent or not a number. */
export function num(r: unknown, path: string): number | null {
  let at: unknown = r;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object') return null;
    at = (at as Json)[key];
  }
  return typeof at === 'number' && Number.isFinite(at) ? at : null;
}

const ratioOf = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b);

const atLeast = (bound: number | null, source: Goal['source'], unit = ''): Goal | null =>
  bound === null ? null : { text: `≥ ${fmt(bound)}${unit}`, source, met: (v) => v >= bound };
const atMost = (bound: number | null, source: Goal['source'], unit = ''): Goal | null =>
  bound === null ? null : { text: `≤ ${fmt(bound)}${unit}`, source, met: (v) => v <= bound };
const below = (bound: number | null, source: Goal['source'], unit = ''): Goal | null =>
  bound === null ? null : { text: `< ${fmt(bound)}${unit}`, source, met: (v) => v < bound };

/** A number with thousands separators, at most `digits` after the point; "–" for none. */
export function fmt(value: number | null, digits = 2): string {
  if (value === null) return '–';
  const fixed = Number(value.toFixed(digits)).toString();
  const [whole, fraction] = fixed.split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction ? `${grouped}.${fraction}` : grouped;
}

/** The codecs an export result measured, in its order. */
const codecs = (r: Json) => Object.keys(((r.details as Json | undefined)?.by_compression as Json | undefined) ?? {});

export const SPECS: BenchSpec[] = [
  {
    bench: 'ingest',
    title: 'Ingestion (`npm run bench:ingest`)',
    about:
      'POST /runs/multipart at rising concurrency against a stack of its own (API and runs projector), against the raw ' +
      'Kafka produce of the same events with the same client, in the same run. Headline: the level with the best ' +
      'end-to-end rate. ClickHouse’s CPU per run follows its inserts (a part on disk each, whatever its rows): the ' +
      'runs projector makes one per table it writes (nine) per batch, a batch every few hundred milliseconds, the ' +
      'minimal copy one per batch of a topic read from the start (the last two figures). A part is a file or two ' +
      'per column, and on the recorded machine creating files is dear: its root filesystem is ext4 without a ' +
      'journal, whose inode allocator skips every inode freed in the last minutes (`recently_deleted`), so a ' +
      '300-row insert into a 31-column table costs ClickHouse 2 ms of user and 25–50 ms of system CPU, more after ' +
      'merges or dropped tables have freed many files. Of ClickHouse’s CPU per run, its background merges’ share ' +
      'is the figure below it.',
    ratios: (r) => {
      const best = ((r.levels as Json[] | undefined) ?? []).find((l) => l.concurrency === r.best_concurrency);
      return [
        {
          label: 'e2e_ratio_to_raw',
          value: num(r, 'e2e_ratio_to_raw'),
          meaning:
            'end-to-end runs/s (first request until every accepted run is a row in ClickHouse) over raw Kafka produce',
          goal: atLeast(0.3, 'issue 35'),
        },
        {
          label: 'ratio_to_raw',
          value: num(r, 'ratio_to_raw'),
          meaning: 'accepted runs/s (2xx) over raw Kafka produce',
        },
        {
          label: 'api_cpu_ratio_to_raw_producer',
          // the line's key (every level); derived from the best level for results measured before it was there
          value:
            num(r, 'api_cpu_ratio_to_raw_producer') ??
            ratioOf(num(best, 'cpu_us_per_run.api'), num(best, 'raw_cpu_us_per_run.bench')),
          meaning: 'the tracing API’s CPU per run (send and drain) over the raw producer’s CPU per run',
          goal: atMost(2, 'issue 35', '×'),
        },
        {
          label: 'projector_cpu_ratio_to_copy',
          value: num(r, 'projector_cpu_ratio_to_copy'),
          meaning:
            'the runs projector’s CPU per run over the minimal copy’s (the same topic consumed, one runs row per run ' +
            'inserted in RowBinary, nothing else: test/bench/minimalCopy.ts)',
          goal: atMost(2, 'issue 35', '×'),
        },
        {
          label: 'clickhouse_cpu_ratio_to_copy',
          value: num(r, 'clickhouse_cpu_ratio_to_copy'),
          meaning: 'ClickHouse’s CPU per run while we ingest over its CPU per run during the minimal copy',
          goal: atMost(1.5, 'issue 35', '×'),
        },
        {
          label: 'sustained_throughput_drift_pct',
          value: num(r, 'sustained_throughput_drift_pct'),
          unit: '%',
          meaning:
            'with BENCH_SUSTAIN_S: the trend of the minutes’ accepted runs/s (least-squares line, its change from the ' +
            'first minute to the last; the minutes scatter by ±5–10 % here, so two single minutes would measure that)',
          goal: r.sustained ? atLeast(0, 'issue 35', ' %') : null,
        },
        {
          label: 'sustained_machine_slowdown_pct',
          value: num(r, 'sustained_machine_slowdown_pct'),
          unit: '%',
          meaning:
            'with BENCH_SUSTAIN_S: how much more CPU a fixed reference job took at the last minute than at the first, ' +
            'by the same trend (the host’s pace, which moves every process’s CPU per run at once)',
        },
        {
          label: 'sustained_rss_growth_pct',
          value: num(r, 'sustained_rss_growth_pct'),
          unit: '%',
          meaning: 'with BENCH_SUSTAIN_S: the API’s or the projector’s RSS growth after the first minute, the larger',
          goal: r.sustained ? below(10, 'issue 35', ' %') : null,
        },
      ];
    },
    figures: (r) => {
      const best = ((r.levels as Json[] | undefined) ?? []).find((l) => l.concurrency === r.best_concurrency);
      return [
        { label: 'best concurrency (clients)', value: num(r, 'best_concurrency') },
        { label: 'accepted', value: num(r, 'accepted_runs_per_s'), unit: 'runs/s' },
        { label: 'end to end', value: num(r, 'e2e_runs_per_s'), unit: 'runs/s' },
        { label: 'raw Kafka produce (best level)', value: num(r, 'raw_kafka_runs_per_s'), unit: 'runs/s' },
        { label: 'request p50', value: num(r, 'p50_ms'), unit: 'ms' },
        { label: 'request p99', value: num(r, 'p99_ms'), unit: 'ms' },
        {
          label: 'request p99 at half the saturating load',
          value: num(r, 'half_load.p99_ms'),
          unit: 'ms',
          goal: below(50, 'issue 35', ' ms'),
        },
        {
          label: 'freshness p99 (2xx → readable), best level',
          value: num(r, 'freshness_p99_ms'),
          unit: 'ms',
          goal: below(1000, 'issue 35', ' ms'),
        },
        {
          label: 'freshness p99 at half the saturating load',
          value: num(r, 'half_load.freshness_p99_ms'),
          unit: 'ms',
          goal: below(1000, 'issue 35', ' ms'),
        },
        { label: 'tracing API CPU per run', value: num(best, 'cpu_us_per_run.api'), unit: 'µs' },
        { label: 'projector CPU per run', value: num(best, 'cpu_us_per_run.projector'), unit: 'µs' },
        { label: 'ClickHouse CPU per run', value: num(best, 'cpu_us_per_run.clickhouse'), unit: 'µs' },
        {
          label: 'of which ClickHouse’s background merges',
          value: num(best, 'clickhouse_merge_cpu_us_per_run'),
          unit: 'µs',
        },
        { label: 'raw producer CPU per run', value: num(best, 'raw_cpu_us_per_run.bench'), unit: 'µs' },
        { label: 'minimal copy CPU per run', value: num(r, 'copy_baseline.copy_cpu_us_per_run'), unit: 'µs' },
        {
          label: 'ClickHouse CPU per run during the copy',
          value: num(r, 'copy_baseline.clickhouse_cpu_us_per_run'),
          unit: 'µs',
        },
        {
          label: 'ClickHouse inserts (parts) per 1,000 runs, every table the projector writes',
          value: num(r, 'clickhouse_inserts_per_1k_runs.total'),
          digits: 2,
        },
        {
          label: 'ClickHouse inserts (parts) per 1,000 runs, the copy',
          value: num(r, 'copy_baseline.inserts_per_1k_runs'),
          digits: 2,
        },
      ];
    },
  },
  {
    bench: 'query',
    title: 'Reads and replay (`npm run bench:query`)',
    about:
      'The read routes over a project seeded through the real ingest path, timed over HTTP one after the other; then a ' +
      'replay of every view into fresh tables while one client reads a 1,000-run trace every 100 ms.',
    ratios: (r) => [
      {
        label: 'reads_during_replay_p99_ratio',
        value:
          num(r, 'reads_during_replay_p99_ratio') ??
          ratioOf(num(r, 'trace_tree_during_replay_ms.p99'), num(r, 'trace_tree_ms.p99')),
        meaning: 'the 1,000-run trace’s p99 while a replay runs over its p99 on a quiet stack',
        goal: atMost(2, 'issue 35', '×'),
      },
      {
        label: 'replay_cpu_ratio_to_copy',
        value: num(r, 'replay_cpu_ratio_to_copy'),
        meaning:
          'the replay’s CPU per run (every view rebuilt) over the minimal copy’s (the runs topic into one runs-shaped ' +
          'table: test/bench/minimalCopy.ts)',
        goal: atMost(2, 'issue 35', '×'),
      },
    ],
    figures: (r) => [
      {
        label: 'tracing API CPU for the 1,000-run trace in tree order',
        value: num(r, 'trace_tree_api_cpu_ms') ?? num(r, 'details.queries.trace_tree.cpu_ms_per_request.api'),
        unit: 'ms',
        goal: atMost(10, 'issue 35', ' ms'),
      },
      { label: 'runs in the project', value: num(r, 'runs') },
      { label: 'seeding, end to end', value: num(r, 'seed_runs_per_s'), unit: 'runs/s' },
      {
        label: 'trace tree (1,000 runs) p50',
        value: num(r, 'trace_tree_ms.p50'),
        unit: 'ms',
        goal: atMost(num(r, 'targets.trace_tree_p50'), 'bench target', ' ms'),
      },
      { label: 'trace tree p99', value: num(r, 'trace_tree_ms.p99'), unit: 'ms' },
      {
        label: 'filtered runs page p50',
        value: num(r, 'filtered_page_ms.p50'),
        unit: 'ms',
        goal: atMost(num(r, 'targets.filtered_page_p50'), 'bench target', ' ms'),
      },
      { label: 'filtered runs page p99', value: num(r, 'filtered_page_ms.p99'), unit: 'ms' },
      {
        label: 'threads page p50',
        value: num(r, 'thread_page_ms.p50'),
        unit: 'ms',
        goal: atMost(num(r, 'targets.thread_page_p50'), 'bench target', ' ms'),
      },
      { label: 'threads page p99', value: num(r, 'thread_page_ms.p99'), unit: 'ms' },
      {
        label: 'project stats p50',
        value: num(r, 'project_stats_ms.p50'),
        unit: 'ms',
        goal: atMost(num(r, 'targets.project_stats_p50'), 'bench target', ' ms'),
      },
      { label: 'project stats p99', value: num(r, 'project_stats_ms.p99'), unit: 'ms' },
      {
        label: 'replay',
        value: num(r, 'replay_runs_per_s'),
        unit: 'runs/s',
        goal: atLeast(num(r, 'targets.replay_runs_per_s'), 'bench target', ' runs/s'),
      },
      { label: 'trace tree p99 during replay', value: num(r, 'trace_tree_during_replay_ms.p99'), unit: 'ms' },
    ],
  },
  {
    bench: 'export',
    title: 'Bulk export (`npm run bench:export`)',
    about:
      'The export pipeline (ClickHouse → Arrow → Parquet → S3) over a seeded project, one export run per day, each ' +
      'codec in a fresh process, against the raw read of the same rows (same queries, RowBinary, same slices and ' +
      'concurrency) in the same run.',
    ratios: (r) => [
      ...codecs(r).map((codec) => ({
        label: `ratio (${codec})`,
        value: num(r, `ratio_${codec}`) ?? num(r, `details.by_compression.${codec}.ratio`),
        meaning: `export rows/s ${codec === 'none' ? 'without compression' : `with ${codec}`} over the raw ClickHouse read of the same rows`,
        goal: atLeast(0.8, 'issue 35'),
      })),
      {
        label: 'ratio_to_read_by_day',
        value: num(r, 'ratio_to_read_by_day'),
        meaning: `export rows/s (${String(r.compression)}) over a raw read of one query per day`,
      },
    ],
    figures: (r) => [
      { label: 'rows exported', value: num(r, 'rows') },
      { label: 'raw read', value: num(r, 'raw_rows_per_s'), unit: 'rows/s' },
      ...codecs(r).flatMap((codec) => [
        { label: `export, ${codec}`, value: num(r, `details.by_compression.${codec}.rows_per_s`), unit: 'rows/s' },
        {
          label: `peak RSS, ${codec}`,
          value: num(r, `details.by_compression.${codec}.peak_rss_mb`),
          unit: 'MB',
          goal: below(300, 'issue 35', ' MB'),
        },
      ]),
    ],
  },
  {
    bench: 'idle',
    title: 'An idle stack (`npm run bench:idle`)',
    about:
      'CPU of the whole default stack (`npm start`: every service and example) that receives nothing, after it ' +
      'settles, against the servers (Kafka, ClickHouse, PostgreSQL, MinIO) alone, measured first in the same run; % ' +
      'of one core.',
    ratios: (r) => [
      {
        label: 'Kafka with the stack / Kafka alone',
        value: ratioOf(
          num(r, 'idle_servers.kafka') ?? num(r, 'idle_stack.kafka'),
          num(r, 'baseline_servers_alone.kafka') ?? num(r, 'baseline_broker_alone.kafka'),
        ),
        meaning: 'derived: the broker’s CPU while the idle stack fetches over its CPU with no stack',
      },
    ],
    figures: (r) => [
      {
        label: 'idle_cpu_pct: the stack’s processes plus what the servers added',
        value: num(r, 'idle_cpu_pct') ?? sumOf(num(r, 'stack_processes_total'), num(r, 'broker_added_by_stack')),
        unit: '% of a core',
        goal: below(3, 'issue 35', ' %'),
      },
      // Every process the result names, as it names them (older results: api, projector, export_worker, kafka…).
      ...Object.keys((r.idle_stack as Json | undefined) ?? {}).map((name) => ({
        label: name.replaceAll('_', ' '),
        value: num(r, `idle_stack.${name}`),
        unit: '% of a core',
      })),
      ...Object.keys((r.servers_added_by_stack as Json | undefined) ?? {}).map((name) => ({
        label: `${name} added by the stack`,
        value: num(r, `servers_added_by_stack.${name}`),
        unit: '% of a core',
      })),
      ...Object.keys((r.baseline_servers_alone ?? r.baseline_broker_alone ?? {}) as Json).map((name) => ({
        label: `${name} alone (baseline)`,
        value: num(r, `baseline_servers_alone.${name}`) ?? num(r, `baseline_broker_alone.${name}`),
        unit: '% of a core',
      })),
    ],
  },
  {
    bench: 'agent',
    title: 'Agent server (`npm run bench:agent`)',
    about:
      'POST /runs/wait of a no-op graph on our agent server and on `@langchain/langgraph-api` (the LangGraph JS ' +
      'server), same graph and load generator, and the same graph’s `graph.invoke` in-process, in the same run.',
    ratios: (r) => [
      {
        label: 'ratio_rps',
        value: num(r, 'ratio_rps'),
        meaning: 'our stateless runs/wait requests/s over langgraph-api’s',
        goal: atLeast(num(r, 'targets.ratio_rps'), 'bench target'),
      },
      {
        label: 'ratio_rps_threads',
        value: num(r, 'ratio_rps_threads'),
        meaning: 'the same on threads (runs/wait on a thread of each client’s own)',
      },
      {
        label: 'server_cpu_ratio_to_invoke',
        // the line's server_cpu_ratio_to_invoke; derived the same way for results measured before it was there
        value:
          num(r, 'server_cpu_ratio_to_invoke') ??
          ratioOf(
            num(r, 'ours.runs_wait.cpu_us_per_request.agent_server'),
            num(r, 'in_process.concurrent.cpu_us_per_request.bench'),
          ),
        meaning: 'our server’s CPU per stateless runs/wait over in-process graph.invoke’s, same concurrency',
        goal: atMost(1.5, 'issue 35', '×'),
      },
    ],
    figures: (r) => [
      { label: 'clients', value: num(r, 'concurrency') },
      { label: 'ours, runs/wait', value: num(r, 'ours.runs_wait.rps'), unit: 'requests/s' },
      { label: 'langgraph-api, runs/wait', value: num(r, 'langgraph_api.runs_wait.rps'), unit: 'requests/s' },
      { label: 'in-process graph.invoke', value: num(r, 'in_process.concurrent.rps'), unit: 'invokes/s' },
      { label: 'ours, runs/wait p50', value: num(r, 'ours.runs_wait.p50_ms'), unit: 'ms' },
      {
        label: 'added p50 over graph.invoke',
        value: num(r, 'added_p50_ms'),
        unit: 'ms',
        goal: atMost(num(r, 'targets.added_p50_ms'), 'bench target', ' ms'),
      },
      { label: 'added p50, one client at a time', value: num(r, 'added_p50_ms_sequential'), unit: 'ms' },
      {
        label: 'our server CPU per runs/wait',
        value: num(r, 'ours.runs_wait.cpu_us_per_request.agent_server'),
        unit: 'µs',
      },
      {
        label: 'graph.invoke CPU per run',
        value: num(r, 'in_process.concurrent.cpu_us_per_request.bench'),
        unit: 'µs',
      },
      { label: 'ours, A2A message/send', value: num(r, 'ours.a2a_send.rps'), unit: 'requests/s' },
    ],
  },
  {
    bench: 'agent-replicas',
    title: 'Agent-server replicas (`npm run bench:agent-replicas`)',
    about:
      'Several agent servers sharing one PostgreSQL run queue against one server, same database and load, in the ' +
      'same run. On a machine with fewer cores than servers the ratio is bounded by the cores, not the design.',
    ratios: (r) =>
      (['runs_wait', 'thread_runs_wait', 'queued_wait'] as const).map((phase) => ({
        label: `ratio.${phase}`,
        value: num(r, `ratio.${phase}`),
        meaning: `runs/s with ${fmt(num(r, 'replicas'))} servers over one server, ${phase.replaceAll('_', ' ')}`,
        goal: atLeast(num(r, 'target.ratio'), 'bench target', '×'),
      })),
    figures: (r) =>
      (['runs_wait', 'thread_runs_wait', 'queued_wait'] as const).flatMap((phase) => [
        { label: `one server, ${phase.replaceAll('_', ' ')}`, value: num(r, `rps.one.${phase}`), unit: 'runs/s' },
        {
          label: `${fmt(num(r, 'replicas'))} servers, ${phase.replaceAll('_', ' ')}`,
          value: num(r, `rps.many.${phase}`),
          unit: 'runs/s',
        },
      ]),
  },
  {
    bench: 'adk',
    title: 'Google ADK agents (`npm run bench:adk`)',
    about:
      'A turn of an ADK agent (two model calls, one tool call) served through `wrap(runner)` on the agent server, ' +
      'against the same ADK runner called directly in-process, in the same run.',
    ratios: (r) => [
      {
        label: 'server turn p50 / direct runner p50',
        value: ratioOf(num(r, 'server_wait_ms.p50'), num(r, 'runner_direct_ms.p50')),
        meaning: 'derived: a turn through runs/wait on the agent server over the same turn on the ADK runner',
      },
      {
        label: 'wrapped graph p50 / direct runner p50',
        value: ratioOf(num(r, 'wrapped_graph_ms.p50'), num(r, 'runner_direct_ms.p50')),
        meaning: 'derived: the wrapped graph’s invoke in-process over the direct runner',
      },
    ],
    figures: (r) => [
      { label: 'direct runner p50', value: num(r, 'runner_direct_ms.p50'), unit: 'ms' },
      { label: 'wrapped graph p50', value: num(r, 'wrapped_graph_ms.p50'), unit: 'ms' },
      { label: 'no-op LangGraph graph p50', value: num(r, 'langgraph_floor_ms.p50'), unit: 'ms' },
      { label: 'agent server runs/wait p50', value: num(r, 'server_wait_ms.p50'), unit: 'ms' },
      {
        label: 'added by wrapper and server, p50',
        value: num(r, 'added_p50.wrapper_and_server_ms'),
        unit: 'ms',
        goal: below(num(r, 'goals.added_p50_ms'), 'bench target', ' ms'),
      },
    ],
  },
  {
    bench: 'chat',
    title: 'Chat app (`npm run bench:chat`)',
    about:
      'The example chat app’s streaming: the first model token through the app against the same agent’s ' +
      '`streamEvents` in-process, and one run fanned out to many SSE subscribers, in the same run.',
    ratios: (r) => [
      {
        label: 'first token p50, app / in-process',
        value: ratioOf(num(r, 'first_token.app_ms.p50'), num(r, 'first_token.in_process_ms.p50')),
        meaning: 'derived: time to the first model token through the app over in-process',
      },
      {
        label: 'fan-out run wall, many subscribers / in-process',
        value: ratioOf(num(r, 'fanout.many.wall_ms'), num(r, 'fanout.in_process.wall_ms.p50')),
        meaning: `derived: the delegating run with ${fmt(num(r, 'fanout.subscribers'))} subscribers over the same run in-process`,
      },
    ],
    figures: (r) => [
      { label: 'first token through the app, p50', value: num(r, 'first_token.app_ms.p50'), unit: 'ms' },
      { label: 'first token in-process, p50', value: num(r, 'first_token.in_process_ms.p50'), unit: 'ms' },
      {
        label: 'added first-token p50',
        value: num(r, 'first_token.added_p50_ms'),
        unit: 'ms',
        goal: below(num(r, 'goals.added_first_token_p50_ms'), 'bench target', ' ms'),
      },
      { label: 'fan-out run wall time', value: num(r, 'fanout.many.wall_ms'), unit: 'ms' },
      { label: 'fan-out events delivered per second', value: num(r, 'fanout.many.events_per_s'), unit: 'events/s' },
      { label: 'fan-out app RSS, peak', value: num(r, 'fanout.many.rss_mib.peak_during_run'), unit: 'MiB' },
      { label: 'one-subscriber run wall time', value: num(r, 'fanout.one_subscriber.wall_ms'), unit: 'ms' },
    ],
  },
  {
    bench: 'deploy',
    title: 'Deployments (`npm run bench:deploy`)',
    about:
      'A control plane deploying the example agent from a local git repository: time to serve, calls during ' +
      'rollouts, the gateway, memory; the baseline is a bare agent server with the same graph, started in the same run.',
    ratios: (r) => [
      {
        label: 'create → deployed p50 / bare server start p50',
        value: ratioOf(num(r, 'create_to_deployed_ms.p50'), num(r, 'baseline_bare_server.start_to_ok_ms.p50')),
        meaning: 'derived: a deployment’s time to serve over a bare server’s spawn-to-/ok',
      },
      {
        label: 'GET /ok via the deployment URL / direct',
        value: ratioOf(num(r, 'gateway_ok.via_deployment_url.rps'), num(r, 'gateway_ok.direct_to_server.rps')),
        meaning: 'derived: requests/s through the control plane’s gateway over straight to the server',
      },
      {
        label: 'RSS per deployment / bare server RSS',
        value: ratioOf(num(r, 'memory.per_deployment_rss_mib.p50'), num(r, 'baseline_bare_server.rss_mib')),
        meaning: 'derived: a deployed server’s resident memory over a bare server’s',
      },
    ],
    figures: (r) => [
      { label: 'bare server start → /ok p50', value: num(r, 'baseline_bare_server.start_to_ok_ms.p50'), unit: 'ms' },
      {
        label: 'create → deployed p50',
        value: num(r, 'create_to_deployed_ms.p50'),
        unit: 'ms',
        goal: below(num(r, 'goals.deployed_p50_ms'), 'bench target', ' ms'),
      },
      { label: 'rollout → deployed p50', value: num(r, 'rollout_to_deployed_ms.p50'), unit: 'ms' },
      {
        label: 'failed calls during rollouts',
        value: num(r, 'calls_during_rollouts.failed'),
        goal: atMost(num(r, 'goals.failed_calls_during_rollouts'), 'bench target'),
      },
      { label: 'calls during rollouts, p99', value: num(r, 'calls_during_rollouts.p99_ms'), unit: 'ms' },
      {
        label: 'GET /ok via the deployment URL',
        value: num(r, 'gateway_ok.via_deployment_url.rps'),
        unit: 'requests/s',
      },
      { label: 'GET /ok direct', value: num(r, 'gateway_ok.direct_to_server.rps'), unit: 'requests/s' },
      { label: 'RSS per deployment, p50', value: num(r, 'memory.per_deployment_rss_mib.p50'), unit: 'MiB' },
      { label: 'control plane RSS', value: num(r, 'memory.control_plane_rss_mib'), unit: 'MiB' },
    ],
  },
  {
    bench: 'evaluation',
    title: 'Datasets and experiments (`npm run bench:evaluation`)',
    about:
      'A dataset of 100,000 examples written in 100 versions through the multipart examples route, then ' +
      '`listExamples` pages at versions drawn at random (baseline: a ClickHouse read of 100 rows of the same ' +
      'table in the same run), and the JS `evaluate()` over 1,000 examples with a no-op target (baseline: ' +
      'the same evaluate() with uploads off, in memory).',
    ratios: (r) => [
      {
        label: 'examples at a version, p50 / raw ClickHouse read p50',
        value: num(r, 'list_at_version_vs_raw_read'),
        meaning:
          'a page of 100 examples at an `as_of` through the API (each example’s version there, the deleted left out) over 100 rows of the table read as they lie',
      },
      {
        label: 'evaluate() per example / evaluate() in memory',
        value: ratioOf(num(r, 'evaluate_ms_per_example'), num(r, 'evaluate_local_ms_per_example')),
        meaning: 'derived: the experiment recorded here (runs, feedback) over the client’s own work',
      },
    ],
    figures: (r) => [
      { label: 'examples written', value: num(r, 'examples_written_per_s'), unit: 'examples/s' },
      { label: 'API CPU per example written', value: num(r, 'write_cpu_us_per_example.api'), unit: 'µs' },
      { label: 'projector CPU per example written', value: num(r, 'write_cpu_us_per_example.projector'), unit: 'µs' },
      { label: 'examples at a version, p50', value: num(r, 'list_at_version_p50_ms'), digits: 1, unit: 'ms' },
      { label: 'examples at a version, p99', value: num(r, 'list_at_version_p99_ms'), digits: 1, unit: 'ms' },
      { label: 'raw ClickHouse read, p50', value: num(r, 'raw_read_p50_ms'), digits: 1, unit: 'ms' },
      {
        label: 'evaluate() overhead per example',
        value: num(r, 'evaluate_overhead_ms_per_example'),
        digits: 2,
        unit: 'ms',
      },
      { label: 'API CPU per evaluated example', value: num(r, 'evaluate_server_cpu_us_per_example.api'), unit: 'µs' },
      {
        label: 'projector CPU per evaluated example',
        value: num(r, 'evaluate_server_cpu_us_per_example.projector'),
        unit: 'µs',
      },
    ],
  },
  {
    bench: 'compose',
    command: 'npm run test:compose',
    title: 'The container topology (`npm run test:compose`)',
    about:
      '`docker-compose.yml` run for real: every image built here without a registry, the topology up, the ' +
      'official clients through the gateway, then one replica of each replicated service and a Kafka broker ' +
      'killed under sustained ingestion (4 clients posting 50 runs a request, then patching them), and a ' +
      'rebuilt image rolled over every replica under the same load. Ratios are of the same run.',
    ratios: (r) => [
      {
        label: 'product image / its Node base image',
        value: ratioOf(num(r, 'images.product.mb'), num(r, 'images.node.mb')),
        meaning: 'derived: the size the platform adds to the Node image it is built on',
      },
      {
        label: 'rolling upgrade: failed requests / requests',
        value: ratioOf(num(r, 'rolling_upgrade.failed'), num(r, 'rolling_upgrade.requests')),
        digits: 4,
        meaning: 'derived: requests answered other than 2xx while every replica was replaced',
        goal: atMost(0, 'issue 37'),
      },
      {
        label: 'faults: refused requests / requests',
        value: ratioOf(num(r, 'faults.refused_requests'), num(r, 'faults.requests')),
        digits: 4,
        meaning: 'derived: 503s while replicas and a broker were killed (every accepted run stored exactly once)',
      },
    ],
    figures: (r) => [
      {
        label: `build of every image (${r.cold ? 'cold: no image, no build cache' : 'warm: images and cache kept'})`,
        value: num(r, 'build_seconds'),
        digits: 1,
        unit: 's',
      },
      { label: 'product image build, in that', value: num(r, 'images.product.seconds'), digits: 1, unit: 's' },
      {
        label: 'product image rebuild, sources unchanged (layers cached)',
        value: num(r, 'rebuild_seconds'),
        digits: 1,
        unit: 's',
      },
      { label: 'product image', value: num(r, 'images.product.mb'), unit: 'MB' },
      { label: 'Node base image (stand-in for node:24-slim)', value: num(r, 'images.node.mb'), unit: 'MB' },
      ...(['kafka', 'clickhouse', 'postgres', 'minio', 'nginx'] as const).map((name) => ({
        label: `${name} stand-in image`,
        value: num(r, `images.${name}.mb`),
        unit: 'MB',
      })),
      {
        label: 'compose up → every container healthy',
        value: num(r, 'start_to_healthy_seconds'),
        digits: 1,
        unit: 's',
      },
      { label: 'deployment created → DEPLOYED', value: num(r, 'deployment_seconds'), digits: 1, unit: 's' },
      ...[
        'tracing-api',
        'projectors',
        'export-worker',
        'agent-server',
        'control-plane',
        'chat-app',
        'kafka-1',
        'clickhouse',
        'postgres',
        'minio',
        'gateway',
      ].map((service) => ({
        label: `memory of ${service}${['tracing-api', 'projectors', 'export-worker', 'agent-server'].includes(service) ? ' (largest replica)' : ''} after the clients ran`,
        value: largestOf(r, 'memory_mib_after_clients', service),
        unit: 'MiB',
      })),
      {
        label: 'tracing API replica killed: longest without a 2xx',
        value: num(r, 'faults.tracing-api.no_2xx_for_ms'),
        unit: 'ms',
      },
      {
        label: 'projector killed: a new run in the read model after',
        value: num(r, 'faults.projector_takeover_ms'),
        unit: 'ms',
      },
      {
        label: 'export worker killed: an export started then completed after',
        value: num(r, 'faults.export_takeover_ms'),
        unit: 'ms',
      },
      {
        label: 'agent server killed: a run completed after',
        value: num(r, 'faults.agent_server_takeover_ms'),
        unit: 'ms',
      },
      {
        label: 'Kafka broker killed: longest without a 2xx',
        value: num(r, 'faults.kafka-2.no_2xx_for_ms'),
        unit: 'ms',
      },
      { label: 'Kafka broker killed: requests refused (503)', value: num(r, 'faults.kafka-2.refused') },
      {
        label: 'Kafka broker killed: a new run in the read model after',
        value: num(r, 'faults.kafka_projected_after_ms'),
        unit: 'ms',
      },
      { label: 'runs accepted during the faults', value: num(r, 'faults.runs_accepted') },
      { label: 'rolling upgrade of 8 replicas', value: num(r, 'rolling_upgrade.seconds'), digits: 1, unit: 's' },
      { label: 'requests during the rolling upgrade', value: num(r, 'rolling_upgrade.requests') },
      {
        label: 'failed requests during the rolling upgrade',
        value: num(r, 'rolling_upgrade.failed'),
        goal: atMost(0, 'issue 37'),
      },
    ],
  },
];

/** The largest of a result's numbers under `path` whose key is `prefix` or `prefix-<n>` (a service's replicas). */
function largestOf(r: Json, path: string, prefix: string): number | null {
  const values = Object.entries(((r as Json)[path] as Json | undefined) ?? {})
    .filter(([key, value]) => new RegExp(`^${prefix}(-\\d+)?$`).test(key) && typeof value === 'number')
    .map(([, value]) => value as number);
  return values.length ? Math.max(...values) : null;
}

function sumOf(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function goalCell(row: Row): string {
  if (!row.goal) return '';
  const verdict = row.value === null ? '' : row.goal.met(row.value) ? ' — met' : ' — not met';
  return `${row.goal.text} (${row.goal.source})${verdict}`;
}

const valueCell = (row: Row, digits: number) =>
  `${fmt(row.value, row.digits ?? digits)}${row.unit && row.value !== null ? ` ${row.unit}` : ''}`;

/**
 * Whether other work kept the machine busy: a load average at the start above twice the cores. The
 * 1-minute average still carries a minute of what ran before (a benchmark run right after another
 * starts near its cores), and at the end it counts the benchmark's own processes.
 */
export const busy = (r: RecordedResult): boolean =>
  typeof r.machine?.cores === 'number' && (num(r, 'load_1m.start') ?? 0) > 2 * r.machine.cores;

/**
 * Whether the machine itself slowed down during the run: the fixed reference job took over 15 %
 * more CPU at the end than at the start (it moves by about 7 % between readings on a quiet machine).
 */
export const slowed = (r: RecordedResult): boolean => (num(r, 'machine_slowdown_pct') ?? 0) > 15;

/** Where, when and on what a result was measured: the label of its tables. */
export function runLabel(r: RecordedResult): string {
  const m = r.machine ?? ({} as Partial<RecordedResult['machine']>);
  const commit = r.commit
    ? `\`${r.commit.slice(0, 7)}\`${r.dirty ? ' (with uncommitted changes)' : ''}`
    : 'unknown commit';
  const settings = Object.entries(r.settings?.env ?? {}).map(([k, v]) => `${k}=${v}`);
  if (r.settings?.args?.length) settings.push(r.settings.args.join(' '));
  return [
    `Machine: ${m.cores ?? '?'} cores, ${m.cpu ?? 'unknown CPU'}, ${m.memory_gb ?? '?'} GB, ${m.os ?? 'unknown OS'}, Node ${m.node ?? '?'}.`,
    `Commit ${commit}, ${r.date?.replace('T', ' ').replace(/\.\d+Z$/, ' UTC') ?? 'unknown date'}, ${fmt(num(r, 'wall_seconds'))} s.`,
    `Load average (1 min): ${fmt(num(r, 'load_1m.start'))} at the start, ${fmt(num(r, 'load_1m.end'))} at the end${busy(r) ? ` on ${m.cores} cores: a busy machine, the absolute figures are low and latencies long` : ''}.`,
    ...(r.reference_job_ms
      ? [
          `Reference job: ${fmt(num(r, 'reference_job_ms.start'))} ms of CPU at the start, ${fmt(num(r, 'reference_job_ms.end'))} ms at the end` +
            `${slowed(r) ? `: the machine ran ${fmt(num(r, 'machine_slowdown_pct'))} % slower by the end, every process’s CPU per unit of work with it` : ''}.`,
        ]
      : []),
    `Settings: ${settings.length ? `\`${settings.join(' ')}\`` : 'the defaults'}.`,
  ].join(' ');
}

const ratioTable = (rows: Row[]) => [
  '| ratio | value | goal | what it compares |',
  '|---|---:|---|---|',
  ...rows.map(
    (row) => `| ${cell(row.label)} | ${valueCell(row, 2)} | ${cell(goalCell(row))} | ${cell(row.meaning ?? '')} |`,
  ),
];

const figureTable = (rows: Row[]) => [
  '| figure | value | goal |',
  '|---|---:|---|',
  ...rows.map((row) => `| ${cell(row.label)} | ${valueCell(row, 1)} | ${cell(goalCell(row))} |`),
];

function section(spec: BenchSpec, r: RecordedResult): string[] {
  return [
    `## ${spec.title}`,
    '',
    spec.about,
    '',
    `*${runLabel(r)}*`,
    '',
    ...ratioTable(spec.ratios(r)),
    '',
    ...figureTable(spec.figures(r)),
    '',
  ];
}

const HEADER = [
  '# Performance',
  '',
  '<!-- Generated by test/bench/renderPerformance.ts from bench/results/*.json. Do not edit by hand. -->',
  '',
  'This page is generated from the benchmark results in `bench/results/`; do not edit it by hand. Each',
  'benchmark (`npm run bench:<name>`) writes its result to `bench/results/<name>.json` with the commit,',
  'date, machine and load average of the run; `npm run bench:docs` renders this page from those files.',
  'Commit both together: a test fails when this page and the results differ. Earlier results are in git',
  '(`git log -p bench/results/`). A trial run that should not replace a result writes elsewhere with',
  '`BENCH_RESULTS_DIR=<dir>`; a run with other settings than the defaults says so in its label.',
  '',
  'Ratios come first: each compares the measured path with a raw baseline measured in the same run on',
  'the same machine, so they carry from one machine to another. Absolute figures come second and hold',
  'only for the machine named above them. Goals are those of issue 35 where it states one, otherwise the',
  'benchmark’s own target. A run on a busy machine (a load average above twice its cores as it',
  'began) says so in its label; its absolute figures are then low and its latencies long, and its',
  'ratios less certain. A label also gives the CPU time of a fixed reference job at the run’s start and',
  'end: on a virtual machine the host’s pace moves every process’s CPU per unit of work at once (by up',
  'to 40 % within ten minutes here), and a run whose machine slowed by more than 15 % says so.',
  '',
];

/** The page for these results (any order); benchmarks without a result are listed at the end. */
export function renderPerformance(results: readonly RecordedResult[]): string {
  const byBench = new Map(results.map((r) => [r.bench, r]));
  const lines = [...HEADER];
  const present = SPECS.filter((s) => byBench.has(s.bench));
  if (present.length) {
    lines.push('| benchmark | machine | commit | date | load (1 min, start → end) |', '|---|---|---|---|---|');
    for (const spec of present) {
      const r = byBench.get(spec.bench)!;
      lines.push(
        `| [${spec.bench}](#${anchor(spec.title)}) | ${r.machine?.cores ?? '?'} cores, ${cell(r.machine?.cpu ?? '?')} | ` +
          `\`${r.commit?.slice(0, 7) ?? '?'}\`${r.dirty ? '+' : ''} | ${r.date?.slice(0, 10) ?? '?'} | ` +
          `${fmt(num(r, 'load_1m.start'))} → ${fmt(num(r, 'load_1m.end'))}${busy(r) ? ' (busy)' : ''} |`,
      );
    }
    lines.push('');
  }
  for (const spec of present) lines.push(...section(spec, byBench.get(spec.bench)!));
  const missing = SPECS.filter((s) => !byBench.has(s.bench)).map(
    (s) => `\`${s.command ?? `npm run bench:${s.bench}`}\``,
  );
  const unknown = results.filter((r) => !SPECS.some((s) => s.bench === r.bench)).map((r) => `\`${r.bench}\``);
  if (missing.length)
    lines.push('## Not measured yet', '', `No result in bench/results/ yet for: ${missing.join(', ')}.`, '');
  if (unknown.length)
    lines.push(
      '## Results without a section',
      '',
      `bench/results/ holds results this page does not render: ${unknown.join(', ')}.`,
      '',
    );
  return `${lines.join('\n').trimEnd()}\n`;
}

/** GitHub's anchor of a heading. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** Every result file of a directory (<bench>.json), by file name. */
export function loadResults(dir = RESULTS_DIR): RecordedResult[] {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
  } catch {
    return [];
  }
  return files.map((f) => {
    const result = JSON.parse(readFileSync(join(dir, f), 'utf8')) as RecordedResult;
    if (f !== `${result.bench}.json`)
      throw new Error(`${join(dir, f)} holds the result of "${result.bench}": expected ${result.bench}.json`);
    return result;
  });
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  writeFileSync(PERFORMANCE_DOC, renderPerformance(loadResults()));
  process.stderr.write(`[bench:docs] wrote ${PERFORMANCE_DOC}\n`);
}
