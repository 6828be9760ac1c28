// ClickHouse from Debian's clickhouse-server package (18.16), run as a plain process with
// the project's config (infra/clickhouse/*.xml rendered into .local/clickhouse/). The
// package's own service (init script, systemd unit, /etc config, /var/lib data) is never used.
// clickhouseReplicas() makes a replicated pair instead: two such servers, coordinated by a
// ZooKeeper (infra/zookeeper.ts), one cluster of one shard and two replicas, for replicated
// table engines.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { aptInstall } from './apt.ts';
import { progress } from './commands.ts';
import type { Component } from './component.ts';
import { extraPortsFromEnv, localDir, logsDir, repoRoot, urlHostPort } from './config.ts';
import type { ExtraPorts, HostPort, StackEndpoints } from './config.ts';
import { isAlive, logFilePath, pidsMatching, startDetached } from './processes.ts';

const clickhouseDir = join(localDir, 'clickhouse');
const templatesDir = join(repoRoot, 'infra', 'clickhouse');

// Debian ships the server as /usr/sbin/clickhouse-server; upstream packages as /usr/bin/clickhouse.
const debianServer = '/usr/sbin/clickhouse-server';
const upstreamServer = '/usr/bin/clickhouse';

/** Per-query memory cap: the machine has 24 GiB shared with Kafka, MinIO and the services. */
const maxMemoryUsageBytes = 4_000_000_000;

/** One ClickHouse server: its component name, its folder (config, data, logs), where it listens. */
export type ClickhouseServer = {
  name: string;
  dir: string;
  host: string;
  httpPort: number;
  tcpPort: number;
  /** For a replica of a replicated pair. */
  replication?: Replication;
};

export type Replication = {
  /** Where the other replicas fetch this one's parts. */
  interserverPort: number;
  zookeeper: HostPort;
  /** This replica's name: the {replica} macro of replicated tables' paths. */
  replica: string;
  /** The cluster both replicas form (one shard): the {cluster} of ON CLUSTER and Distributed tables. */
  cluster: string;
  /** Every replica of the cluster, this one included: host and native port. */
  replicas: HostPort[];
};

export function clickhouseComponent(endpoints: StackEndpoints, ports: ExtraPorts = extraPortsFromEnv()): Component {
  const { host, port } = urlHostPort(endpoints.clickhouseUrl, 'CLICKHOUSE_URL');
  return serverComponent(
    { name: 'clickhouse', dir: clickhouseDir, host, httpPort: port, tcpPort: ports.clickhouseTcpPort },
    endpoints.clickhouseUrl,
  );
}

/**
 * One ClickHouse server of its own in `dir`, listening on `host` at the given ports: a fault test's,
 * which stops and starts it without touching the local stack's server.
 */
export function clickhouseServerComponent(
  name: string,
  dir: string,
  host: string,
  ports: { httpPort: number; tcpPort: number },
): Component {
  return serverComponent({ name, dir, host, ...ports });
}

/**
 * A replicated pair (or more) in `dir`: replica i in `<dir>/<namePrefix>-<i>`, all on `host`,
 * coordinated by the ZooKeeper at `zookeeper`, forming cluster `cluster`. Start them once
 * ZooKeeper answers: 18.16's distributed-DDL thread asks for it as the server starts, and a
 * server that cannot reach it then stops.
 */
export function clickhouseReplicas(
  dir: string,
  host: string,
  zookeeper: HostPort,
  ports: Array<{ httpPort: number; tcpPort: number; interserverPort: number }>,
  namePrefix: string,
  cluster = 'read_models',
): Component[] {
  const replicas = ports.map((p) => ({ host, port: p.tcpPort }));
  return ports.map((p, i) => {
    const name = `${namePrefix}-${i + 1}`;
    return serverComponent({
      name,
      dir: join(dir, name),
      host,
      httpPort: p.httpPort,
      tcpPort: p.tcpPort,
      replication: { interserverPort: p.interserverPort, zookeeper, replica: name, cluster, replicas },
    });
  });
}

function serverComponent(server: ClickhouseServer, endpoint = `http://${server.host}:${server.httpPort}`): Component {
  const { name, dir, host, httpPort, tcpPort, replication } = server;
  const configFile = join(dir, 'config.xml');
  return {
    name,
    endpoint,
    host,
    port: httpPort,
    ports: replication
      ? [
          // A replica's ports are its caller's choice (clickhouseReplicas), not settings.
          {
            host: listenHost(host),
            port: httpPort,
            variable: 'clickhouseReplicas()',
            purpose: `the HTTP interface of ClickHouse replica ${name}`,
          },
          {
            host: listenHost(host),
            port: tcpPort,
            variable: 'clickhouseReplicas()',
            purpose: `the native protocol of ClickHouse replica ${name}`,
          },
          {
            host: listenHost(host),
            port: replication.interserverPort,
            variable: 'clickhouseReplicas()',
            purpose: `the interserver port of ClickHouse replica ${name}`,
          },
        ]
      : [
          {
            host: listenHost(host),
            port: httpPort,
            variable: 'CLICKHOUSE_URL',
            purpose: "ClickHouse's HTTP interface",
          },
          {
            host: listenHost(host),
            port: tcpPort,
            variable: 'CLICKHOUSE_TCP_PORT',
            purpose: "ClickHouse's native protocol",
          },
        ],
    processMarker: configFile,
    isHealthy: () => clickhouseAnswers(endpoint),
    install: installClickhouse,
    start: async () => {
      renderConfig(server);
      const command = serverCommand();
      return startDetached({
        name,
        endpoint,
        command: command.command,
        args: [...command.args, `--config-file=${configFile}`],
        cwd: dir,
      });
    },
    healthTimeoutMs: 60_000,
    // 18.16 waits on SIGTERM until every HTTP connection thread ends, and clients that keep
    // sending on keep-alive connections (a polling projector) can hold it for minutes. A
    // SIGKILL is safe: MergeTree parts appear atomically, and projectors re-insert from Kafka.
    stopGraceMs: 15_000,
    logFiles: [join(dir, 'logs', 'clickhouse-server.err.log'), logFilePath(name)],
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
    const select = await fetch(`${base}/?query=${encodeURIComponent('SELECT 1')}`, {
      headers,
      signal: AbortSignal.timeout(3_000),
    });
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

function renderConfig(server: ClickhouseServer): void {
  const { dir, host, httpPort, tcpPort, replication } = server;
  for (const sub of ['data', 'tmp', 'user_files', 'format_schemas', 'logs'])
    mkdirSync(join(dir, sub), { recursive: true });
  const values: Record<string, string> = {
    DIR: dir,
    LISTEN_HOST: listenHost(host),
    HTTP_PORT: String(httpPort),
    TCP_PORT: String(tcpPort),
    MAX_MEMORY_USAGE: String(maxMemoryUsageBytes),
  };
  const raw = { REPLICATION: replication ? replicationXml(listenHost(host), replication) : '' };
  writeFileSync(join(dir, 'config.xml'), renderTemplate(join(templatesDir, 'config.xml'), values, raw));
  writeFileSync(join(dir, 'users.xml'), renderTemplate(join(templatesDir, 'users.xml'), values));
}

const xml = (value: string | number): string =>
  String(value).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** A replica's part of config.xml: its interserver port, ZooKeeper, its macros, the cluster of all replicas. */
export function replicationXml(listen: string, r: Replication): string {
  const replicas = r.replicas
    .map((p) => `<replica><host>${xml(p.host)}</host><port>${xml(p.port)}</port></replica>`)
    .join('');
  return [
    `<interserver_http_host>${xml(listen)}</interserver_http_host>`,
    `<interserver_http_port>${xml(r.interserverPort)}</interserver_http_port>`,
    `<zookeeper><node><host>${xml(r.zookeeper.host)}</host><port>${xml(r.zookeeper.port)}</port></node><session_timeout_ms>10000</session_timeout_ms></zookeeper>`,
    `<macros><cluster>${xml(r.cluster)}</cluster><shard>01</shard><replica>${xml(r.replica)}</replica></macros>`,
    `<remote_servers><${r.cluster}><shard><internal_replication>true</internal_replication>${replicas}</shard></${r.cluster}></remote_servers>`,
    `<distributed_ddl><path>/clickhouse/task_queue/ddl</path></distributed_ddl>`,
  ].join('\n    ');
}

/** Fills {{NAME}} placeholders with XML-escaped values (`raw`: XML as it is); a placeholder left unfilled is a bug. */
export function renderTemplate(
  templateFile: string,
  values: Record<string, string>,
  raw: Record<string, string> = {},
): string {
  return readFileSync(templateFile, 'utf8').replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => {
    if (raw[name] !== undefined) return raw[name];
    const value = values[name];
    if (value === undefined) throw new Error(`${templateFile}: no value for {{${name}}}`);
    return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  });
}
