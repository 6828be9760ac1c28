import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from 'vitest';
import { renderTemplate, replicationXml } from '../../infra/clickhouse.ts';
import { repoRoot } from '../../infra/config.ts';

const values = {
  DIR: '/srv/a&b/.local/clickhouse',
  LISTEN_HOST: '127.0.0.1',
  HTTP_PORT: '8123',
  TCP_PORT: '9002',
  MAX_MEMORY_USAGE: '4000000000',
};

test('the ClickHouse config renders with every placeholder filled and every path under .local', () => {
  const config = renderTemplate(join(repoRoot, 'infra', 'clickhouse', 'config.xml'), values, { REPLICATION: '' });
  expect(config).not.toMatch(/\{\{/);
  expect(config).toContain('<listen_host>127.0.0.1</listen_host>');
  expect(config).toContain('<tcp_port>9002</tcp_port>');
  expect(config).not.toContain('interserver_http_port');
  // Paths are XML-escaped.
  expect(config).toContain('<path>/srv/a&amp;b/.local/clickhouse/data/</path>');
  for (const [, path] of config.matchAll(
    /<(?:path|tmp_path|user_files_path|format_schema_path|users_config|log|errorlog)>([^<]+)</g,
  )) {
    expect(path?.startsWith('/srv/a&amp;b/.local/clickhouse/')).toBe(true);
  }
  const users = renderTemplate(join(repoRoot, 'infra', 'clickhouse', 'users.xml'), values);
  expect(users).toContain('<max_memory_usage>4000000000</max_memory_usage>');
  expect(users).not.toContain('::/0');
});

test('a placeholder without a value is an error, not an empty string', () => {
  const template = join(mkdtempSync(join(tmpdir(), 'ch-template-')), 't.xml');
  writeFileSync(template, '<x>{{MISSING}}</x>');
  expect(() => renderTemplate(template, {})).toThrow(/MISSING/);
});

test("a replica's config names its interserver port, ZooKeeper, its macros and the cluster of every replica", () => {
  const part = replicationXml('127.0.0.1', {
    interserverPort: 9109,
    zookeeper: { host: '127.0.0.1', port: 2181 },
    replica: 'ch-1',
    cluster: 'read_models',
    replicas: [
      { host: '127.0.0.1', port: 9102 },
      { host: '127.0.0.1', port: 9202 },
    ],
  });
  const config = renderTemplate(join(repoRoot, 'infra', 'clickhouse', 'config.xml'), values, { REPLICATION: part });
  expect(config).toContain('<interserver_http_port>9109</interserver_http_port>');
  expect(config).toContain('<zookeeper><node><host>127.0.0.1</host><port>2181</port></node>');
  expect(config).toContain('<macros><cluster>read_models</cluster><shard>01</shard><replica>ch-1</replica></macros>');
  expect(config).toContain(
    '<read_models><shard><internal_replication>true</internal_replication><replica><host>127.0.0.1</host><port>9102</port></replica><replica><host>127.0.0.1</host><port>9202</port></replica></shard></read_models>',
  );
});
