// Runs schemathesis (property-based requests generated from an OpenAPI document) against a
// running service with all its checks (test/contract/schemathesis.toml says where an answer of
// a documented convention is expected) and reads its NDJSON report: how many requests it sent,
// every answer that was a server error, and every check that failed. The run is bounded
// (examples per operation, and a time budget), its seed is given or drawn and returned, so a
// failure can be replayed with the same seed.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomInt } from 'node:crypto';
import { repoRoot } from './serviceProcess.ts';
import { run, type PythonEnv } from './pythonEnv.ts';

export interface FuzzOptions {
  /** The venv that has schemathesis (FUZZ_PYTHON). */
  python: PythonEnv;
  /** Where the OpenAPI document is served, e.g. http://127.0.0.1:1984/docs/json. */
  schemaUrl: string;
  baseUrl: string;
  headers?: Record<string, string>;
  /** Test cases per operation and phase. */
  maxExamples: number;
  /** A time budget for the whole run, in seconds. */
  maxSeconds?: number;
  /** How long schemathesis may run before it is stopped (20 minutes unless said). */
  timeoutMs?: number;
  seed?: number;
  /** Names the report folder under .local/fuzz. */
  name: string;
  /** Paths (as the document writes them) not to fuzz. */
  excludePaths?: string[];
  /** A schemathesis hooks file (test/contract/*.py), given FUZZ_BASE_URL and FUZZ_HEADERS (JSON) in its environment. */
  hooks?: string;
}

/** An answer whose status the document does not list for that operation. */
export interface UndocumentedStatus {
  operation: string;
  status: number;
  documented: string;
}

/** A check that failed: one per operation, check and status. */
export interface CheckFailure {
  operation: string;
  /** The check's name (positive_data_acceptance, …) and schemathesis's code for the failure (ST202, …). */
  check: string;
  code: string;
  status: number;
  /** What schemathesis says, and the start of the answer's body. */
  message: string;
  response: string;
}

export interface ServerError {
  method: string;
  url: string;
  status: number;
  requestBody: string;
  responseBody: string;
}

export interface FuzzResult {
  seed: number;
  /** Requests sent. */
  requests: number;
  /** Operations of the document that were tested. */
  operations: number;
  serverErrors: ServerError[];
  /** Answers with a status the operation does not declare (status_code_conformance), one per operation and status. */
  undocumented: UndocumentedStatus[];
  /** Every check that failed (status_code_conformance's among them). */
  failures: CheckFailure[];
  /** Errors of schemathesis itself (an operation it could not test), which leave an operation less tested. */
  errors: string[];
  /** Set when schemathesis did not finish (cut off at the time limit): what it last finished, and when. */
  unfinished?: string;
  /** The command, to replay the run by hand. */
  command: string;
  exitCode: number | null;
  output: string;
}

/** Where an answer of a documented convention is expected (the checks' settings per operation). */
export const SCHEMATHESIS_CONFIG = join(repoRoot, 'test', 'contract', 'schemathesis.toml');

interface Interaction {
  request: { method: string; uri: string; body?: { string?: string; $base64?: string } };
  response: { status_code: number; content?: { string?: string; $base64?: string } } | null;
}

const text = (content: { string?: string; $base64?: string } | undefined): string =>
  content?.string ?? (content?.$base64 ? Buffer.from(content.$base64, 'base64').toString('utf8') : '');

export async function fuzzOpenApi(options: FuzzOptions): Promise<FuzzResult> {
  const seed = options.seed ?? randomInt(1, 2 ** 31);
  const reportDir = join(repoRoot, '.local', 'fuzz', `${options.name}-${Date.now()}`);
  mkdirSync(reportDir, { recursive: true });
  const args = [
    // Every check runs (schemathesis's default); `--checks all` would say the same but override
    // the per-operation settings of the config file.
    '-m',
    'schemathesis.cli',
    '--config-file',
    SCHEMATHESIS_CONFIG,
    'run',
    options.schemaUrl,
    '--url',
    options.baseUrl,
    '--phases',
    'examples,coverage,fuzzing',
    // One worker: with two, Hypothesis's lambda descriptions (ast.parse from two threads) fail
    // now and then on CPython 3.11 ("AST constructor recursion depth mismatch"), and the
    // operation is left untested; on two cores the second worker saves little.
    '--max-examples',
    String(options.maxExamples),
    '--seed',
    String(seed),
    '--workers',
    '1',
    '--generation-database',
    'none',
    '--request-timeout',
    '30',
    '--no-color',
    '--report',
    'ndjson',
    '--report-dir',
    reportDir,
    ...(options.maxSeconds ? ['--max-time', String(options.maxSeconds)] : []),
    ...(options.excludePaths ?? []).flatMap((path) => ['--exclude-path', path]),
    ...Object.entries(options.headers ?? {}).flatMap(([k, v]) => ['--header', `${k}: ${v}`]),
  ];
  const env = {
    ...process.env,
    SCHEMATHESIS_HOOKS: options.hooks ?? '',
    FUZZ_BASE_URL: options.baseUrl,
    FUZZ_HEADERS: JSON.stringify(options.headers ?? {}),
  };
  const out = await run(options.python.python, args, env, options.timeoutMs ?? 20 * 60_000, reportDir);
  const report = readdirSync(reportDir).find((f) => f.endsWith('.ndjson'));
  if (!report)
    throw new Error(`schemathesis wrote no report (exit ${out.code}):\n${(out.stdout + out.stderr).slice(-4000)}`);

  let requests = 0;
  let operations = 0;
  const serverErrors: ServerError[] = [];
  const undocumented = new Map<string, UndocumentedStatus>();
  const failures = new Map<string, CheckFailure>();
  const errors: string[] = [];
  let finished = false;
  let last = { label: '(none)', at: 0 };
  for (const line of readFileSync(join(reportDir, report), 'utf8').split('\n')) {
    if (!line) continue;
    const event = JSON.parse(line) as Record<string, any>;
    if (event.EngineFinished) finished = true;
    if (event.ScenarioFinished)
      last = { label: String(event.ScenarioFinished.recorder?.label), at: event.ScenarioFinished.timestamp };
    if (event.LoadingFinished) operations = event.LoadingFinished.statistic?.operations?.selected ?? 0;
    if (event.NonFatalError)
      errors.push(
        `${event.NonFatalError.label ?? ''}: ${String(event.NonFatalError.value?.message ?? event.NonFatalError.info?.message ?? JSON.stringify(event.NonFatalError)).slice(0, 300)}`,
      );
    const recorder = event.ScenarioFinished?.recorder;
    for (const [caseId, checks] of Object.entries(
      (recorder?.checks ?? {}) as Record<string, Array<{ name: string; status: string; failure_info?: any }>>,
    ))
      for (const check of checks) {
        if (check.status !== 'failure') continue;
        const interaction = recorder.interactions?.[caseId] as Interaction | undefined;
        const status = interaction?.response?.status_code ?? 0;
        const operation = String(check.failure_info?.failure?.operation ?? recorder.label);
        const failure = check.failure_info?.failure ?? {};
        failures.set(`${operation} ${check.name} ${status}`, {
          operation,
          check: check.name,
          code: String(failure.code ?? ''),
          status,
          message: `${failure.title ?? ''}: ${String(failure.message ?? '')
            .split('\n')
            .slice(0, 3)
            .join(' ')}`.slice(0, 400),
          response: text(interaction?.response?.content).slice(0, 300),
        });
        if (check.name !== 'status_code_conformance') continue;
        const documented = String(failure.allowed_status_codes ?? failure.message ?? '');
        undocumented.set(`${operation} ${status}`, { operation, status, documented });
      }
    const interactions = recorder?.interactions as Record<string, Interaction> | undefined;
    for (const i of Object.values(interactions ?? {})) {
      requests++;
      const status = i.response?.status_code ?? 0;
      if (status >= 500)
        serverErrors.push({
          method: i.request.method,
          url: i.request.uri,
          status,
          requestBody: text(i.request.body).slice(0, 500),
          responseBody: text(i.response?.content).slice(0, 500),
        });
    }
  }
  const shown = args.map((a) =>
    a.startsWith('X-Api-Key') || a.toLowerCase().startsWith('x-api-key') ? `'${a.split(':')[0]}: <key>'` : a,
  );
  return {
    seed,
    requests,
    operations,
    serverErrors,
    undocumented: [...undocumented.values()],
    failures: [...failures.values()],
    errors,
    ...(finished
      ? {}
      : {
          unfinished: `schemathesis was cut off at the time limit; the last operation it finished was ${last.label}${last.at ? `, ${Math.round(Date.now() / 1000 - last.at)} s before` : ''}`,
        }),
    command: `${options.python.python} ${shown.join(' ')}`,
    exitCode: out.code,
    output: out.stdout + out.stderr,
  };
}
