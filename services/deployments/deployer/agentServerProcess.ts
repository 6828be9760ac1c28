// One deployed revision's agent server as a supervised child process: healthy once `GET /ok`
// answers at its URL; restarted when it dies unexpectedly, after the shared restart curve
// (platform/restartPolicy.ts), and given up when it keeps dying; stopped by closing its IPC
// channel (it then ends as on SIGTERM, its traces sent), SIGKILL after a grace. Its output goes to a log file and to onOutput (the revision's deploy
// log), and its last lines into the messages of failures. A deployer that ends leaves no server
// behind: each server ends itself when its IPC channel to the deployer closes, which it does
// however the deployer ends, killed with SIGKILL included.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { RestartPolicy } from '../../../platform/restartPolicy.ts';
import type { SpawnPlan } from './sandbox.ts';
import { lastLines } from './sourcePreparation.ts';

export interface AgentServerProcessOptions {
  /** How the server is started (in its sandbox, sandbox.ts): the same plan at each restart. */
  spawn: SpawnPlan;
  /** Where it answers (`<url>/ok`): the loopback port bridged to its socket. */
  url: string;
  logFile: string;
  /** How long a start may take to answer `/ok`. */
  healthTimeoutMs: number;
  /** How long a stop waits after SIGTERM before SIGKILL. */
  stopGraceMs: number;
  onOutput?(text: string, stream: 'stdout' | 'stderr'): void;
  onExited(exit: { code: number | null; signal: string | null; restartInMs: number }): void;
  onRestarted(pid: number): void;
  onGivenUp(message: string): void;
}

const OUTPUT_TAIL_BYTES = 8 * 1024;

export class AgentServerProcess {
  readonly url: string;
  readonly #options: AgentServerProcessOptions;
  readonly #policy = new RestartPolicy();
  #child: ChildProcess | undefined;
  /** Whether the current child said, over IPC, that it listens (agentServerMain.ts). */
  #listening = false;
  #log: WriteStream | undefined;
  #output = '';
  #stopping = false;
  #restartTimer: NodeJS.Timeout | undefined;
  #stopped: Promise<void> | undefined;

  constructor(options: AgentServerProcessOptions) {
    this.#options = options;
    this.url = options.url;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last lines the server wrote (stdout and stderr), for a failure's message. */
  outputTail(lines = 15): string {
    return lastLines(this.#output, lines);
  }

  /**
   * Starts the server and waits until it is healthy: it said over IPC that it listens, and /ok
   * answers. Rejects with why (its exit, with `exitCode`, or the timeout).
   */
  async start(): Promise<void> {
    const child = this.#spawn();
    const startedAt = Date.now();
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code, signal) =>
        reject(
          Object.assign(
            new Error(`the agent server exited (${signal ?? `exit code ${code}`}) before it answered /ok`),
            { exitCode: code },
          ),
        ),
      ),
    );
    exited.catch(() => undefined);
    try {
      await Promise.race([this.#waitHealthy(child, startedAt), exited]);
    } catch (err) {
      await this.stop();
      throw err;
    }
    child.on('exit', (code, signal) => this.#exitedWhileServing(child, code, signal, Date.now() - startedAt));
  }

  /** Asks it to end (its IPC channel closed), SIGKILL after the grace; no restart afterwards. Resolves when the process is gone. */
  stop(): Promise<void> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#restartTimer);
    const child = this.#child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      // Closing its IPC channel is how it is asked to end (agentServerMain.ts): a signal would
      // reach the sandbox's bubblewrap, which dies of it, taking the server along unfinished.
      if (child.connected) child.disconnect();
      else child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), this.#options.stopGraceMs);
      await gone;
      clearTimeout(timer);
    }
    await new Promise<void>((r) => (this.#log ? this.#log.end(r) : r()));
    this.#log = undefined;
  }

  #spawn(): ChildProcess {
    const { spawn: plan, logFile } = this.#options;
    this.#log ??= createWriteStream(logFile, { flags: 'a' });
    // The IPC channel is the server's lifeline: it ends itself when the channel closes (agentServerMain.ts).
    const child = spawn(plan.file, plan.args, {
      cwd: plan.cwd,
      env: plan.env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.#child = child;
    this.#listening = false;
    child.on('message', (message: { type?: string } | null) => {
      if (message?.type === 'agent-server-listening' && child === this.#child) this.#listening = true;
    });
    const keep = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      this.#log?.write(chunk);
      const text = chunk.toString('utf8');
      this.#output = (this.#output + text).slice(-OUTPUT_TAIL_BYTES);
      this.#options.onOutput?.(text, stream);
    };
    child.stdout!.on('data', keep('stdout'));
    child.stderr!.on('data', keep('stderr'));
    return child;
  }

  async #waitHealthy(child: ChildProcess, startedAt: number): Promise<void> {
    const deadline = startedAt + this.#options.healthTimeoutMs;
    while (Date.now() < deadline) {
      if (this.#stopping) throw new Error('the deployment was stopped while its agent server was starting');
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error('the agent server exited while starting');
      try {
        const res = await fetch(`${this.url}/ok`, { signal: AbortSignal.timeout(2_000) });
        // Only once the child holds the port: another program on it would answer /ok too.
        if (res.ok && this.#listening) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(
      `the agent server did not answer ${this.url}/ok within ${Math.round(this.#options.healthTimeoutMs / 1000)} s`,
    );
  }

  #exitedWhileServing(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null, ranMs: number): void {
    if (this.#stopping || child !== this.#child) return;
    const decision = this.#policy.decide({ code, signal, ranMs });
    if (!decision.restart) {
      const tail = this.outputTail();
      this.#options.onGivenUp(
        `the agent server is not restarted: ${decision.reason}${tail ? `. Its last output:\n${tail}` : ''}`,
      );
      void this.stop();
      return;
    }
    this.#options.onExited({ code, signal, restartInMs: decision.delayMs });
    this.#restartTimer = setTimeout(() => void this.#restart(), decision.delayMs);
  }

  async #restart(): Promise<void> {
    if (this.#stopping) return;
    const child = this.#spawn();
    const startedAt = Date.now();
    // Its exit, before or after it is healthy, goes through the policy again like any other.
    child.on('exit', (code, signal) => this.#exitedWhileServing(child, code, signal, Date.now() - startedAt));
    try {
      await this.#waitHealthy(child, startedAt);
    } catch {
      // Dead (its exit is handled above), stopped, or alive but not answering: the next exit decides.
      if (child.exitCode === null && child.signalCode === null && !this.#stopping) child.kill('SIGKILL');
      return;
    }
    if (!this.#stopping && child === this.#child && child.exitCode === null) this.#options.onRestarted(child.pid!);
  }
}
