// Runs a Node script of the repository as a process of its own (its CPU its own, not the
// bench's) with the stack's environment, and answers the JSON line it ends its output with: how
// the benchmarks run the minimal copy (copyBaseline.ts) and a replay (query.bench.ts).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../support/serviceProcess.ts';

export async function runJsonLineProcess<T>(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  log?: (msg: string) => void,
): Promise<T> {
  const child = spawn(process.execPath, [join(repoRoot, script), ...args], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    if (log) for (const line of d.toString().split('\n')) if (line.trim()) log(`${name}: ${line.trim().slice(0, 300)}`);
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the ${name} exited with ${code}: ${err.slice(-2000)}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as T;
}
