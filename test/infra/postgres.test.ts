// PostgreSQL in the local stack: the shared server answers real queries, and a private server
// (own port, own data folder, own pid file) shows initdb, credentials, durability and `down`
// without touching the shared one.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { endpointsFromEnv } from '../../infra/config.ts';
import { postgresComponent } from '../../infra/postgres.ts';
import { logFilePath, ownPid, stopOwnServer, waitUntilHealthy } from '../../infra/processes.ts';
import { stackStatus } from '../../infra/stack.ts';
import { provideInfra } from '../support/infra.ts';
import { freePort } from '../support/serviceProcess.ts';

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

async function connectionError(url: string): Promise<string> {
  try {
    await withClient(url, (client) => client.query('SELECT 1'));
    return 'connected';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

test('the shared PostgreSQL answers real queries at POSTGRES_URL', async () => {
  const { postgresUrl } = await provideInfra();
  const table = `infra_test_${randomUUID().replaceAll('-', '')}`;
  const rows = await withClient(postgresUrl, async (client) => {
    await client.query(`CREATE TEMPORARY TABLE ${table} (id int PRIMARY KEY, body jsonb NOT NULL)`);
    await client.query(`INSERT INTO ${table} VALUES ($1, $2), ($3, $4)`, [1, { step: 'a' }, 2, { step: 'b' }]);
    return (await client.query(`SELECT body->>'step' AS step FROM ${table} ORDER BY id`)).rows;
  });
  expect(rows).toEqual([{ step: 'a' }, { step: 'b' }]);
});

test.skipIf(process.env.TEST_INFRA === 'containers')(
  'infra status reports PostgreSQL as running, started by infra up',
  async () => {
    const { postgresUrl } = await provideInfra();
    const postgres = (await stackStatus()).find((entry) => entry.name === 'postgres');
    expect(postgres).toMatchObject({ endpoint: postgresUrl, running: true });
    expect(postgres?.pid).toBeTypeOf('number');
  },
);

describe.skipIf(process.env.TEST_INFRA === 'containers')('a private server of the same component', () => {
  const name = `test-postgres-${randomUUID().slice(0, 8)}`;
  // Not created here: the component creates it and, as root, hands it to the postgres account.
  const dir = join(tmpdir(), name);
  let stopAtEnd: (() => Promise<unknown>) | undefined;

  afterAll(async () => {
    await stopAtEnd?.();
    rmSync(dir, { recursive: true, force: true });
    rmSync(logFilePath(name), { force: true });
    rmSync(logFilePath(`${name}-initdb`), { force: true });
  });

  test("is made with the URL's credentials and database, keeps data across a restart, and stops with clients connected", async () => {
    const port = await freePort();
    // A user, a password with URL-escaped characters and a database other than the defaults.
    const url = `postgres://checkpoints:${encodeURIComponent('s3cret@/:x')}@127.0.0.1:${port}/agent_state`;
    const component = postgresComponent(endpointsFromEnv({ POSTGRES_URL: url }), { name, dir });
    stopAtEnd = () => stopOwnServer(name, component.processMarker, 5_000, component.stopSignal);
    const startHealthy = async () => {
      const server = await component.start();
      await waitUntilHealthy({
        name,
        isHealthy: component.isHealthy,
        timeoutMs: component.healthTimeoutMs,
        logFiles: component.logFiles,
        server,
      });
      return server;
    };

    await component.install();
    const first = await startHealthy();
    expect(ownPid(name, component.processMarker)).toBe(first.pid);
    expect(await connectionError(url.replace(encodeURIComponent('s3cret@/:x'), 'wrong'))).toBe('28P01'); // invalid_password
    await withClient(url, async (client) => {
      await client.query('CREATE TABLE checkpoints (thread_id text PRIMARY KEY, state jsonb)');
      await client.query(`INSERT INTO checkpoints VALUES ('t1', '{"count": 3}')`);
    });

    // An idle client stays connected, as a pooled agent server's would; `down` must not wait for it.
    const idle = new pg.Client({ connectionString: url });
    idle.on('error', () => undefined);
    await idle.connect();
    const stopped = await stopOwnServer(name, component.processMarker, component.stopGraceMs, component.stopSignal);
    expect(stopped).toEqual({ stopped: true, pid: first.pid, killed: false });
    expect(await component.isHealthy()).toBe(false);

    const second = await startHealthy();
    expect(second.pid).not.toBe(first.pid);
    const rows = await withClient(
      url,
      async (client) => (await client.query('SELECT current_database() AS db, state FROM checkpoints')).rows,
    );
    expect(rows).toEqual([{ db: 'agent_state', state: { count: 3 } }]);
  });
});
