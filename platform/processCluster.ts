// Runs a server as several processes on one port (node:cluster: the primary accepts connections
// and hands them to the workers in turn), so that it can use more than one core. The primary
// serves nothing itself: it starts the workers, starts again one that exits (after the delay
// platform/restartPolicy.ts gives; one that cannot start stops them all, with its exit code),
// and on SIGTERM or SIGINT passes SIGTERM to each worker and exits once every one has drained
// (each closes its server, so the answers it owes are sent first) and exited.
import cluster, { type Worker } from 'node:cluster';
import { RestartPolicy } from './restartPolicy.ts';
import type { Logger } from './logger.ts';

export const isClusterWorker = (): boolean => cluster.isWorker;

export interface ClusterOptions {
  /** Worker processes to keep running. */
  workers: number;
  /** Who they are, for log lines ("the tracing API"). */
  who: string;
  logger: Logger;
}

/** In the primary: starts the workers (this same entry script) and supervises them until the process exits. */
export function superviseWorkers({ workers, who, logger }: ClusterOptions): void {
  let stopping = false;
  let exitCode = 0;
  /** Each slot keeps its own restart history: a worker that keeps crashing does not hold up the others. */
  const slots = Array.from({ length: workers }, () => ({
    policy: new RestartPolicy(),
    startedAt: 0,
    worker: null as Worker | null,
  }));

  const stopAll = (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    const running = slots.filter((slot) => slot.worker !== null);
    if (running.length === 0) process.exit(exitCode);
    for (const slot of running) slot.worker!.process.kill('SIGTERM');
  };

  const start = (index: number) => {
    const slot = slots[index]!;
    slot.startedAt = performance.now();
    const worker = cluster.fork();
    slot.worker = worker;
    worker.once('exit', (code, signal) => {
      slot.worker = null;
      if (stopping) {
        if (slots.every((s) => s.worker === null)) process.exit(exitCode);
        return;
      }
      const decision = slot.policy.decide({
        code,
        signal: signal as NodeJS.Signals | null,
        ranMs: performance.now() - slot.startedAt,
      });
      if (decision.restart) {
        logger.error(
          { pid: worker.process.pid, code, signal, restartInMs: decision.delayMs },
          `a worker process of ${who} exited; restarting it`,
        );
        setTimeout(() => !stopping && start(index), decision.delayMs);
        return;
      }
      logger.error(
        { pid: worker.process.pid, code, signal },
        `a worker process of ${who} is not restarted: ${decision.reason}; stopping the others`,
      );
      stopAll(code ?? 1);
    });
  };

  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.on(signal, () => {
      logger.info({ signal }, `stopping the worker processes of ${who}`);
      stopAll(0);
    });
  for (let i = 0; i < workers; i++) start(i);
}
