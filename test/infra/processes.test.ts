// The process helper behind up/down: servers run detached with a pid file and a log, failures
// quote the log, and only a pid whose command line is still ours is ever signalled.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { test, expect, afterAll } from 'vitest';
import {
  isAlive,
  logFilePath,
  ownPid,
  pidFilePath,
  startDetached,
  stopOwnServer,
  waitUntilHealthy,
} from '../../infra/processes.ts';

const names: string[] = [];
function uniqueName(label: string): string {
  const name = `test-${label}-${randomUUID().slice(0, 8)}`;
  names.push(name);
  return name;
}

afterAll(() => {
  for (const name of names) rmSync(logFilePath(name), { force: true });
});

test('a server that exits before it is healthy fails fast, quoting its log', async () => {
  const name = uniqueName('exits');
  const server = startDetached({
    name,
    endpoint: 'none',
    command: process.execPath,
    args: ['-e', 'console.error("port already in use"); process.exit(3)'],
  });
  const started = Date.now();
  await expect(
    waitUntilHealthy({ name, isHealthy: async () => false, timeoutMs: 30_000, logFiles: [logFilePath(name)], server }),
  ).rejects.toThrow(/exited \(code 3\)[\s\S]*port already in use/);
  expect(Date.now() - started).toBeLessThan(20_000);
  await stopOwnServer(name, 'never-matches', 1_000);
});

test('down stops our server by its pid file: SIGTERM first, SIGKILL after the grace period', async () => {
  const name = uniqueName('stubborn');
  const marker = `marker-${name}`;
  // Ignores SIGTERM, so only the SIGKILL after the grace period ends it.
  const script = `process.on('SIGTERM', () => {}); console.log('ready ${name}'); setInterval(() => {}, 1000); // ${marker}`;
  const server = startDetached({ name, endpoint: 'none', command: process.execPath, args: ['-e', script] });
  // "Healthy" once the handler is installed, or SIGTERM could land before it.
  const ready = async () =>
    ownPid(name, marker) !== undefined && readFileSync(logFilePath(name), 'utf8').includes(`ready ${name}\n`);
  await waitUntilHealthy({ name, isHealthy: ready, timeoutMs: 10_000, logFiles: [] });
  expect(Number(readFileSync(pidFilePath(name), 'utf8'))).toBe(server.pid);

  const result = await stopOwnServer(name, marker, 500);
  expect(result).toEqual({ stopped: true, pid: server.pid, killed: true });
  expect(isAlive(server.pid)).toBe(false);
  expect(existsSync(pidFilePath(name))).toBe(false);
});

test("a stale pid file naming somebody else's process is never signalled", async () => {
  const name = uniqueName('stale');
  const bystander = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)'], { stdio: 'ignore' });
  try {
    writeFileSync(pidFilePath(name), `${bystander.pid}\n`);
    expect(ownPid(name, 'kafka.Kafka')).toBeUndefined();
    expect(await stopOwnServer(name, 'kafka.Kafka', 500)).toEqual({ stopped: false });
    expect(isAlive(bystander.pid as number)).toBe(true);
    expect(existsSync(pidFilePath(name))).toBe(false);
  } finally {
    bystander.kill();
  }
});

test('a server started through a link to the marker (another worktree of the checkout) is ours, and one naming another file is not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'own-pid-'));
  const real = join(dir, 'config.xml');
  const link = join(dir, 'linked-local');
  writeFileSync(real, '');
  symlinkSync(dir, link);
  const name = uniqueName('linked');
  const server = startDetached({
    name,
    endpoint: 'none',
    command: process.execPath,
    args: ['-e', 'setInterval(() => {}, 1000)', '--', `--config-file=${join(link, 'config.xml')}`],
  });
  try {
    await waitUntilHealthy({
      name,
      isHealthy: async () => ownPid(name, join(link, 'config.xml')) !== undefined,
      timeoutMs: 10_000,
      logFiles: [],
    });
    expect(ownPid(name, real)).toBe(server.pid);
    writeFileSync(join(dir, 'other.xml'), '');
    expect(ownPid(name, join(dir, 'other.xml'))).toBeUndefined();
  } finally {
    await stopOwnServer(name, real, 1_000);
    rmSync(dir, { recursive: true, force: true });
  }
});
