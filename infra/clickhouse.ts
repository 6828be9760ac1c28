// ClickHouse from Debian's clickhouse-server package (18.16), run as a plain process with
// the project's config (infra/clickhouse/*.xml rendered into .local/clickhouse/). The
// package's own service (init script, systemd unit, /etc config, /var/lib data) is never used.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { aptInstall } from './apt.ts';
import { progress } from './commands.ts';
import type { Component } from './component.ts';
import { extraPortsFromEnv, localDir, logsDir, repoRoot, urlHostPort } from './config.ts';
import type { ExtraPorts, StackEndpoints } from './config.ts';
import { isAlive, logFilePath, pidsMatching, startDetached } from './processes.ts';

const clickhouseDir = join(localDir, 'clickhouse');
const configFile = join(clickhouseDir, 'config.xml');
const usersFile = join(clickhouseDir, 'users.xml');
const templatesDir = join(repoRoot, 'infra', 'clickhouse');
const serverLogsDir = join(clickhouseDir, 'logs');

// Debian ships the server as /usr/sbin/clickhouse-server; upstream packages as /usr/bin/clickhouse.
const debianServer = '/usr/sbin/clickhouse-server';
const upstreamServer = '/usr/bin/clickhouse';

/** Per-query memory cap: the machine has 24 GiB shared with Kafka, MinIO and the services. */
const maxMemoryUsageBytes = 4_000_000_000;

export function clickhouseComponent(endpoints: StackEndpoints, ports: ExtraPorts = extraPortsFromEnv()): Component {
  const { host, port } = urlHostPort(endpoints.clickhouseUrl, 'CLICKHOUSE_URL');
  const { clickhouseTcpPort } = ports;
  return {
    name: 'clickhouse',
    endpoint: endpoints.clickhouseUrl,
    host,
    port,
    ports: [
      { host: listenHost(host), port, variable: 'CLICKHOUSE_URL', purpose: "ClickHouse's HTTP interface" },
      { host: listenHost(host), port: clickhouseTcpPort, variable: 'CLICKHOUSE_TCP_PORT', purpose: "ClickHouse's native protocol" },
    ],
    processMarker: configFile,
    isHealthy: () => clickhouseAnswers(endpoints.clickhouseUrl),
    install: installClickhouse,
    start: async () => {
      renderConfig(host, port, clickhouseTcpPort);
      const server = serverCommand();
      return startDetached({ name: 'clickhouse', endpoint: endpoints.clickhouseUrl, command: server.command, args: [...server.args, `--config-file=${configFile}`], cwd: clickhouseDir });
    },
    healthTimeoutMs: 60_000,
    // 18.16 waits on SIGTERM until every HTTP connection thread ends, and clients that keep
    // sending on keep-alive connections (a polling projector) can hold it for minutes. A
    // SIGKILL is safe: MergeTree parts appear atomically, and projectors re-insert from Kafka.
    stopGraceMs: 15_000,
    logFiles: [join(serverLogsDir, 'clickhouse-server.err.log'), logFilePath('clickhouse')],
  };
}

function serverCommand(): { command: string; args: string[] } {
  if (existsSync(debianServer)) return { command: debianServer, args: [] };
  if (existsSync(upstreamServer)) return { command: upstreamServer, args: ['server'] };
  throw new Error(`no ClickHouse server binary (${debianServer} or ${upstreamServer})`);
}

/** `GET /ping` says "Ok." and a real query runs. */
async function clickhouseAnswers(clickhouseUrl: string): Promise<boolean> {
  try {
    const url = new URL(clickhouseUrl);
    const headers: Record<string, string> = {};
    if (url.username) headers['X-ClickHouse-User'] = decodeURIComponent(url.username);
    if (url.password) headers['X-ClickHouse-Key'] = decodeURIComponent(url.password);
    url.username = '';
    url.password = '';
    const base = url.toString().replace(/\/$/, '');
    const ping = await fetch(`${base}/ping`, { signal: AbortSignal.timeout(2_000) });
    if (!ping.ok || (await ping.text()).trim() !== 'Ok.') return false;
    const select = await fetch(`${base}/?query=${encodeURIComponent('SELECT 1')}`, { headers, signal: AbortSignal.timeout(3_000) });
    return select.ok && (await select.text()).trim() === '1';
  } catch {
    return false;
  }
}

async function installClickhouse(): Promise<void> {
  if (existsSync(debianServer) || existsSync(upstreamServer)) return;
  progress('clickhouse: installing Debian packages clickhouse-server, clickhouse-client (apt-get)');
  const packagedServer = '--config=/etc/clickhouse-server/config.xml';
  const before = new Set(pidsMatching(packagedServer));
  await aptInstall(['clickhouse-server', 'clickhouse-client'], join(logsDir, 'install-clickhouse.log'));
  // Should the postinst have started the packaged service after all, stop exactly that
  // process: it would hold 8123 and 9000 with the packaged config.
  for (const pid of pidsMatching(packagedServer)) {
    if (before.has(pid) || !isAlive(pid)) continue;
    progress(`clickhouse: stopping the server the package install started (pid ${pid})`);
    process.kill(pid, 'SIGTERM');
  }
}

function listenHost(host: string): string {
  return host === 'localhost' ? '127.0.0.1' : host;
}

function renderConfig(host: string, httpPort: number, tcpPort: number): void {
  for (const dir of ['data', 'tmp', 'user_files', 'format_schemas', 'logs']) mkdirSync(join(clickhouseDir, dir), { recursive: true });
  const values: Record<string, string> = {
    DIR: clickhouseDir,
    LISTEN_HOST: listenHost(host),
    HTTP_PORT: String(httpPort),
    TCP_PORT: String(tcpPort),
    MAX_MEMORY_USAGE: String(maxMemoryUsageBytes),
  };
  writeFileSync(configFile, renderTemplate(join(templatesDir, 'config.xml'), values));
  writeFileSync(usersFile, renderTemplate(join(templatesDir, 'users.xml'), values));
}

/** Fills {{NAME}} placeholders with XML-escaped values; a placeholder left unfilled is a bug. */
export function renderTemplate(templateFile: string, values: Record<string, string>): string {
  return readFileSync(templateFile, 'utf8').replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${templateFile}: no value for {{${name}}}`);
    return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  });
}
