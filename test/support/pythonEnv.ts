// Python virtualenvs for the tests: the official Python clients (from
// test/e2e/python/requirements.txt) and tools kept apart from them so their dependencies cannot
// clash (the OpenAPI fuzzer, test/contract/requirements.txt; chdb, test/contract/chdb/; the
// `langgraph` CLI, test/e2e/langgraph-cli/). Each lives in
// .local/venvs/<name>-<hash of its requirements file>: checkouts pinning different versions
// (branches, worktrees sharing .local) each get their own, instead of reinstalling one under each
// other's running tests. ensurePythonEnv() creates it with the machine's python3 when missing and
// pip-installs the requirements (a stamp file records that the install finished). Warm, it costs
// one `python -c` call. Unattended: only PyPI is needed, and concurrent callers (vitest workers)
// wait on a lock directory (installLock.ts).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withInstallLock } from './installLock.ts';
import { repoRoot } from './serviceProcess.ts';

/** A venv, named by what it is for, and the requirements file that fills it. */
export interface PythonEnvSpec {
  venv: string;
  requirements: string;
  /** sha256 of the requirements file, as the venv's stamp records it. */
  hash: string;
}

function pythonEnvSpec(name: string, requirements: string): PythonEnvSpec {
  const hash = createHash('sha256').update(readFileSync(requirements, 'utf8')).digest('hex');
  return { venv: join(repoRoot, '.local', 'venvs', `${name}-${hash.slice(0, 12)}`), requirements, hash };
}

export const PYTHON_REQUIREMENTS = join(repoRoot, 'test', 'e2e', 'python', 'requirements.txt');
/** The official Python clients. */
export const E2E_PYTHON: PythonEnvSpec = pythonEnvSpec('e2e', PYTHON_REQUIREMENTS);
export const PYTHON_VENV = E2E_PYTHON.venv;
/** schemathesis, the OpenAPI fuzzer (test/contract/). */
export const FUZZ_PYTHON: PythonEnvSpec = pythonEnvSpec('fuzz', join(repoRoot, 'test', 'contract', 'requirements.txt'));
/** chdb, current ClickHouse in-process (test/contract/currentClickHouse.test.ts). */
export const CHDB_PYTHON: PythonEnvSpec = pythonEnvSpec(
  'chdb',
  join(repoRoot, 'test', 'contract', 'chdb', 'requirements.txt'),
);
/** The official `langgraph` CLI (PyPI langgraph-cli), whose deploy command test/e2e/langgraphCli.test.ts runs. */
export const LANGGRAPH_CLI_PYTHON: PythonEnvSpec = pythonEnvSpec(
  'langgraph-cli',
  join(repoRoot, 'test', 'e2e', 'langgraph-cli', 'requirements.txt'),
);

export interface PythonEnv {
  /** The venv's interpreter. */
  python: string;
  venv: string;
}

export interface Output {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end and gives its exit code and output (killed after `timeoutMs`). */
export function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 15 * 60_000,
  cwd?: string,
): Promise<Output> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`could not run ${command}: ${err.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const tail = (text: string, lines = 30) => text.trimEnd().split('\n').slice(-lines).join('\n');

async function runOrThrow(what: string, command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<Output> {
  const out = await run(command, args, env);
  if (out.code !== 0)
    throw new Error(
      `${what} failed (exit ${out.code}): ${command} ${args.join(' ')}\n${tail(out.stdout + out.stderr)}`,
    );
  return out;
}

/** The interpreter that makes the venv: $PYTHON if set, else python3 from PATH. */
const basePython = () => process.env.PYTHON ?? 'python3';

/** Creates or updates the venv as needed and returns its interpreter. Idempotent. */
export async function ensurePythonEnv(spec: PythonEnvSpec = E2E_PYTHON): Promise<PythonEnv> {
  const venv = spec.venv;
  const python = join(venv, 'bin', 'python');
  const stamp = join(venv, '.requirements.sha256');
  const wanted = spec.hash;
  const isCurrent = async () =>
    existsSync(python) &&
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8').trim() === wanted &&
    (await run(python, ['-c', 'import sys'])).code === 0;

  if (await isCurrent()) return { python, venv };
  mkdirSync(join(repoRoot, '.local', 'venvs'), { recursive: true });
  return withInstallLock(venv, async () => {
    if (await isCurrent()) return { python, venv };
    // A venv whose interpreter no longer runs (its base python moved) is made anew.
    if (existsSync(venv) && (!existsSync(python) || (await run(python, ['-c', 'import sys'])).code !== 0))
      rmSync(venv, { recursive: true, force: true });
    if (!existsSync(python)) await runOrThrow('creating the Python venv', basePython(), ['-m', 'venv', venv]);
    rmSync(stamp, { force: true });
    const env = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INPUT: '1' };
    await runOrThrow(
      `pip install of ${spec.requirements}`,
      python,
      ['-m', 'pip', 'install', '--quiet', '-r', spec.requirements],
      env,
    );
    writeFileSync(stamp, wanted + '\n');
    return { python, venv };
  });
}
