// Short-lived commands of the install and start steps (apt-get, mvn, go, Kafka's storage
// formatter): their output goes to a log file, and a failure quotes that log's tail, so a
// CI failure is readable without digging.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export type CommandOptions = {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Written to the command's stdin. */
  input?: string;
};

/** Runs a command to completion with stdout and stderr appended to `logFile`; throws on failure. */
export async function runLogged(
  logFile: string,
  command: string,
  args: string[],
  options: CommandOptions = {},
): Promise<void> {
  mkdirSync(dirname(logFile), { recursive: true });
  const fd = openSync(logFile, 'a');
  writeSync(fd, `\n=== ${new Date().toISOString()} ${command} ${args.join(' ')}\n`);
  let code: number | null;
  try {
    code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(command, args, {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        stdio: [options.input === undefined ? 'ignore' : 'pipe', fd, fd],
      });
      child.once('error', reject);
      child.once('close', resolve);
      child.stdin?.end(options.input);
    });
  } finally {
    closeSync(fd);
  }
  if (code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (exit ${code}); see ${logFile}\n--- last lines ---\n${tailOfFile(logFile, 25)}`,
    );
  }
}

export type Captured = { code: number | null; stdout: string; stderr: string };

/** Runs a command and returns what it printed; never throws for a non-zero exit. */
export function capture(command: string, args: string[], options: CommandOptions = {}): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.end(options.input);
  });
}

/**
 * The last lines of a log, without stack-trace frames (ClickHouse's "12. /lib/…" and Java's
 * "\tat …"), which would otherwise crowd out the message that explains a failure.
 */
export function tailOfFile(file: string, lines: number): string {
  try {
    const text = readFileSync(file, 'utf8');
    const frame = /^(\s*\d+\. \S|\s+at \S|\s*\.\.\. \d+ more)/;
    return text
      .trimEnd()
      .split('\n')
      .filter((line) => !frame.test(line))
      .slice(-lines)
      .join('\n');
  } catch {
    return '(log not readable)';
  }
}

/** One short progress line on stderr, so stdout stays the command's result. */
export function progress(message: string): void {
  if (process.env.INFRA_QUIET === '1') return;
  process.stderr.write(`[infra] ${message}\n`);
}

/** Formats elapsed milliseconds as "12.3s" for progress lines. */
export function seconds(sinceMs: number): string {
  return `${((Date.now() - sinceMs) / 1000).toFixed(1)}s`;
}

/**
 * `work`, with a progress line every `everyMs` while it runs (`say` gets the time so far), so a build of
 * minutes shows it is alive and how long it has taken.
 */
export async function withProgressTicks<T>(
  work: Promise<T>,
  say: (elapsed: string) => string,
  everyMs = 30_000,
): Promise<T> {
  const started = Date.now();
  const timer = setInterval(() => progress(say(seconds(started))), everyMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
