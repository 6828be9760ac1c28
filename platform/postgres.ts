// PostgreSQL helpers the contexts that keep state there share (the agent server's records, run
// queue and checkpoints; the example chat app's threads).
import type pg from 'pg';

/** Runs `work` in a transaction on a client of the pool: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * PostgreSQL refused a text or jsonb value it cannot store: a NUL character (`\u0000`), or one
 * the database encoding lacks. The request's fault (a 422), not the server's.
 */
export function isUnstorableText(err: unknown): boolean {
  const code = (err as { code?: unknown; severity?: unknown } | null)?.code;
  return typeof (err as { severity?: unknown } | null)?.severity === 'string' && (code === '22P05' || code === '22021');
}
