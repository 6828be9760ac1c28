// A PostgreSQL database of a test's own on the shared server, and the agent-server env that
// keeps its threads, runs and checkpoints there.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { provideInfra } from './infra.ts';

export interface ScratchPostgres {
  url: string;
  /** AGENT_SERVER_CHECKPOINTER=postgres at this database. */
  agentServerEnv: Record<string, string>;
  drop(): Promise<void>;
}

/** Runs one statement as the server's admin (CREATE or DROP DATABASE). */
export async function asAdmin(adminUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

export async function scratchPostgres(prefix: string): Promise<ScratchPostgres> {
  const adminUrl = (await provideInfra()).postgresUrl;
  const database = `${prefix}_${randomBytes(4).toString('hex')}`;
  await asAdmin(adminUrl, `CREATE DATABASE ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    agentServerEnv: { AGENT_SERVER_CHECKPOINTER: 'postgres', POSTGRES_URL: url.toString() },
    drop: () => asAdmin(adminUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`),
  };
}
