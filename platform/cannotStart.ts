// How a process says that it cannot start (a bad configuration, a port another program holds):
// what is wrong, every problem at once, on stderr, and exit code 78 (EX_CONFIG in sysexits.h).
// services/main.ts takes that code as "restarting would fail the same way" and restarts no such child.

export const CANNOT_START_EXIT_CODE = 78;

export function cannotStartMessage(headline: string, problems: readonly string[]): string {
  return [headline, ...problems.map((problem) => `  - ${problem}`)].join('\n');
}

export function exitCannotStart(headline: string, problems: readonly string[]): never {
  // stderr is synchronous for files, pipes and terminals on Linux: the message is out before the exit.
  process.stderr.write(`${cannotStartMessage(headline, problems)}\n`);
  process.exit(CANNOT_START_EXIT_CODE);
}
