// Long-running servers of the local stack: started detached (they outlive `infra up`), with
// their pid in .local/run/<name>.pid and their stdout/stderr in .local/logs/<name>.log.
// Only a pid from our own pid file, whose command line still looks like our server, is ever
// signalled: the pid file may be stale and the pid reused by an unrelated process.
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { logsDir, runDir } from './config.ts';
import { tailOfFile } from './commands.ts';

export function pidFilePath(name: string): string {
  return join(runDir, `${name}.pid`);
}

function endpointFilePath(name: string): string {
  return join(runDir, `${name}.endpoint`);
}

/** The endpoint our server `name` was started for, if recorded. */
export function ownServerEndpoint(name: string): string | undefined {
  try {
    return readFileSync(endpointFilePath(name), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

export function logFilePath(name: string): string {
  return join(logsDir, `${name}.log`);
}

export type ServerSpec = {
  name: string;
  /** Recorded next to the pid file, so a later `up` for another endpoint can tell. */
  endpoint: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
};

export type StartedServer = {
  pid: number;
  /** Settles with the exit code if the server exits while this process still watches it. */
  exited: Promise<number | null>;
};

export function startDetached(spec: ServerSpec): StartedServer {
  mkdirSync(runDir, { recursive: true });
  mkdirSync(logsDir, { recursive: true });
  const logFd = openSync(logFilePath(spec.name), 'a');
  writeSync(logFd, `\n=== ${new Date().toISOString()} starting: ${spec.command} ${spec.args.join(' ')}\n`);
  try {
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      detached: true, // own process group: Ctrl-C on `infra up` does not take the servers down
      stdio: ['ignore', logFd, logFd],
    });
    // Listen before anything can throw: a missing binary is reported as an 'error' event.
    const exited = new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.once('error', () => resolve(null));
    });
    if (child.pid === undefined)
      throw new Error(`could not start ${spec.command} for ${spec.name} (not found or not executable)`);
    child.unref();
    writeFileSync(pidFilePath(spec.name), `${child.pid}\n`);
    writeFileSync(endpointFilePath(spec.name), `${spec.endpoint}\n`);
    return { pid: child.pid, exited };
  } finally {
    closeSync(logFd);
  }
}

/** True while the pid names a live process (zombies count as gone). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 3, after "pid (comm)", is the state; the comm itself may contain spaces or parentheses.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/**
 * The pid of our server `name` if the pid file names a live process whose command line
 * contains `marker` (e.g. "kafka.Kafka"); undefined otherwise.
 */
export function ownPid(name: string, marker: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFilePath(name), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 1) return undefined;
  if (!isAlive(pid) || !namesMarker(commandLine(pid), marker)) return undefined;
  return pid;
}

/**
 * Whether a command line names the marker, itself or through a link: git worktrees whose .local
 * links to one checkout's start the same servers under their own paths.
 */
function namesMarker(command: string, marker: string): boolean {
  if (command.includes(marker)) return true;
  const real = realPathOf(marker);
  if (real === undefined) return false;
  return command.split(/[\s=]/).some((word) => word.startsWith('/') && word !== marker && realPathOf(word) === real);
}

function realPathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

export type StopResult = { stopped: boolean; pid?: number; killed?: boolean };

/** Signal our server (SIGTERM by default), wait up to graceMs for it to exit, then SIGKILL. Never touches other pids. */
export async function stopOwnServer(
  name: string,
  marker: string,
  graceMs: number,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<StopResult> {
  const pid = ownPid(name, marker);
  if (pid === undefined) {
    removeRunFiles(name);
    return { stopped: false };
  }
  process.kill(pid, signal);
  let killed = false;
  if (!(await waitForExit(pid, graceMs))) {
    process.kill(pid, 'SIGKILL');
    killed = true;
    await waitForExit(pid, 5_000);
  }
  removeRunFiles(name);
  return { stopped: true, pid, killed };
}

function removeRunFiles(name: string): void {
  rmSync(pidFilePath(name), { force: true });
  rmSync(endpointFilePath(name), { force: true });
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(100);
  }
  return !isAlive(pid);
}

export type HealthWait = {
  name: string;
  isHealthy: () => Promise<boolean>;
  timeoutMs: number;
  /** Logs to name in the error, the first one's tail is quoted. */
  logFiles: string[];
  /** When we started the server ourselves: stop waiting as soon as it exits. */
  server?: StartedServer;
};

export async function waitUntilHealthy(wait: HealthWait): Promise<void> {
  const deadline = Date.now() + wait.timeoutMs;
  let exitCode: number | null | undefined;
  void wait.server?.exited.then((code) => {
    exitCode = code;
  });
  while (Date.now() < deadline) {
    if (await wait.isHealthy()) return;
    if (exitCode !== undefined) {
      throw new Error(failureMessage(wait, `${wait.name} exited (code ${exitCode}) before it became healthy`));
    }
    await sleep(300);
  }
  if (await wait.isHealthy()) return;
  throw new Error(
    failureMessage(wait, `${wait.name} did not become healthy within ${Math.round(wait.timeoutMs / 1000)}s`),
  );
}

function failureMessage(wait: HealthWait, headline: string): string {
  // Quote every log that exists: a JVM that cannot start writes to stdout, a broker that
  // fails later writes to its own log file.
  const tails = wait.logFiles
    .filter((file) => existsSync(file))
    .map((file) => `\n--- last lines of ${file} ---\n${tailOfFile(file, 15)}`);
  return `${headline}; see ${wait.logFiles.join(' and ')}${tails.join('')}`;
}

/** Pids of live processes whose command line contains `text` (for spotting servers a package started). */
export function pidsMatching(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid !== process.pid && isAlive(pid) && commandLine(pid).includes(text)) pids.push(pid);
  }
  return pids;
}

/** True when something accepts TCP connections on host:port. */
export function portAcceptsConnections(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
