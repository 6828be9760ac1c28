// Runs one of our services as a real child process, the way `npm start` does, for tests and
// benchmarks that need to stop or kill it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const repoRoot = join(import.meta.dirname, '..', '..');

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  stop(): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function startService(entry: string, env: Record<string, string>, logName: string): ServiceProcess {
  mkdirSync(join(repoRoot, '.local', 'logs', 'test'), { recursive: true });
  const log = createWriteStream(join(repoRoot, '.local', 'logs', 'test', `${logName}.log`), { flags: 'a' });
  const child = spawn(process.execPath, [join(repoRoot, entry)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    child,
    pid: child.pid!,
    kill,
    async stop() {
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await kill('SIGTERM');
      clearTimeout(timer);
    },
  };
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 60_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`,
  );
}

export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** A process's children (node:cluster workers, say), from /proc; empty when it has none or is gone. */
export function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** Whether a process runs: it exists and is not a zombie its (new) parent has yet to reap. */
export function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
