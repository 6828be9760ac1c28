// Runs one of the scripts of test/e2e/python with the venv's interpreter (test/support/pythonEnv.ts)
// and the official client configured only through the environment: every LANGSMITH_* and
// LANGCHAIN_* variable of this process is dropped, the given ones are set. A script prints its
// answer as one JSON line last (test/e2e/python/_harness.py adds the requests the client made
// and what it logged); a non-zero exit or a missing JSON line fails with the script's output.
import { join } from 'node:path';
import { expect } from 'vitest';
import { run, type PythonEnv } from './pythonEnv.ts';
import { repoRoot } from './serviceProcess.ts';

export const PYTHON_SCRIPTS = join(repoRoot, 'test', 'e2e', 'python');

export interface PythonRequest {
  method: string;
  path: string;
  status: number;
  encoding: string | null;
  /** The answer's body when it was not a 2xx. */
  detail?: string;
}

export interface PythonLogRecord {
  logger: string;
  level: string;
  message: string;
}

export interface ScriptOutput<T> {
  result: T & { requests: PythonRequest[]; log: PythonLogRecord[] };
  stderr: string;
}

export async function runPythonScript<T>(
  pyenv: PythonEnv,
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<ScriptOutput<T>> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(LANGSMITH|LANGCHAIN)_/.test(k)));
  const { code, stdout, stderr } = await run(
    pyenv.python,
    [join(PYTHON_SCRIPTS, script), ...args],
    { ...clean, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1', ...env },
    timeoutMs,
    PYTHON_SCRIPTS,
  );
  const fail = (why: string) =>
    new Error(`${script} ${why}\n--- stderr ---\n${stderr}\n--- stdout ---\n${stdout.slice(-4000)}`);
  if (code !== 0) throw fail(`exited with ${code}`);
  try {
    return { result: JSON.parse(stdout.trimEnd().split('\n').at(-1) ?? ''), stderr };
  } catch {
    throw fail('printed no JSON result');
  }
}

/** Nothing the client logged may say that it failed to send or read something, and every request got a 2xx. */
export function expectNoClientFailures(out: ScriptOutput<unknown>): void {
  const failures = out.result.log.filter((r) => /fail|error|exception|retry/i.test(r.message));
  expect(failures, out.stderr).toEqual([]);
  expect(out.stderr).not.toMatch(/Failed to (batch|multipart|send compressed multipart) ingest/);
  expect(out.result.requests.filter((r) => r.status >= 300)).toEqual([]);
}
