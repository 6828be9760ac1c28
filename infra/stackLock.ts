// One `infra up`/`down` at a time on a machine: two test workers, or `npm test` next to
// `npm start`, must not both start a Kafka (the loser's pid file would hide the winner's).
import { mkdirSync, openSync, closeSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { progress } from './commands.ts';
import { runDir } from './config.ts';
import { isAlive } from './processes.ts';

const lockFile = join(runDir, 'stack.lock');

export async function withStackLock<T>(work: () => Promise<T>, waitMs = 30 * 60_000): Promise<T> {
  mkdirSync(runDir, { recursive: true });
  const deadline = Date.now() + waitMs;
  let announced = false;
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(readFileSafe(lockFile).trim());
    if (!Number.isInteger(holder) || holder <= 0 || holder === process.pid || !isAlive(holder)) {
      rmSync(lockFile, { force: true }); // left by a process that died; take it over
      continue;
    }
    if (Date.now() > deadline) throw new Error(`another infra command (pid ${holder}) holds ${lockFile}`);
    if (!announced) progress(`waiting for another infra command (pid ${holder}) to finish`);
    announced = true;
    await sleep(500);
  }
  try {
    return await work();
  } finally {
    rmSync(lockFile, { force: true });
  }
}

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
