// Debian packages the stack needs (ClickHouse, PostgreSQL; Java and Maven where a machine lacks them).
// Unattended: no prompts, no config-file questions, and no service started by a package's
// postinst (there is no init system here, and a packaged clickhouse-server would take
// ports that belong to our own processes).
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { runLogged } from './commands.ts';

let queue: Promise<unknown> = Promise.resolve();
let listsUpdated = false;

/** apt-get install, one call at a time (dpkg holds a lock), with `apt-get update` once per run. */
export function aptInstall(packages: string[], logFile: string): Promise<void> {
  const job = queue.then(() => installNow(packages, logFile));
  queue = job.catch(() => undefined);
  return job;
}

async function installNow(packages: string[], logFile: string): Promise<void> {
  if (process.getuid?.() !== 0) {
    throw new Error(`${packages.join(', ')} missing; installing needs root: apt-get install -y ${packages.join(' ')}`);
  }
  const env = { DEBIAN_FRONTEND: 'noninteractive', NEEDRESTART_MODE: 'a' };
  await withServiceStartsBlocked(async () => {
    if (!listsUpdated) {
      await runLogged(logFile, 'apt-get', ['update'], { env });
      listsUpdated = true;
    }
    await runLogged(
      logFile,
      'apt-get',
      [
        'install',
        '-y',
        '--no-install-recommends',
        '-o',
        'Dpkg::Options::=--force-confdef',
        '-o',
        'Dpkg::Options::=--force-confold',
        ...packages,
      ],
      { env },
    );
  });
}

const policyFile = '/usr/sbin/policy-rc.d';

/**
 * Debian's documented switch for "do not start services from maintainer scripts": a
 * policy-rc.d that exits 101. Container images usually have one; when this machine does
 * not, one is put in place for the install and removed afterwards.
 */
async function withServiceStartsBlocked(install: () => Promise<void>): Promise<void> {
  if (existsSync(policyFile)) return install();
  writeFileSync(
    policyFile,
    '#!/bin/sh\n# temporary, from infra/apt.ts: no service starts during apt-get install\nexit 101\n',
    { mode: 0o755 },
  );
  try {
    await install();
  } finally {
    rmSync(policyFile, { force: true });
  }
}
