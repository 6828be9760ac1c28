// Test helpers that talk to the shared tracing stack: fresh workspaces with their own keys,
// plain HTTP calls, and waiting until a run has been projected.
import { inject } from 'vitest';
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { EventLog } from '../../platform/kafka/eventLog.ts';
import { TenancyService } from '../../services/tenancy/tenancyService.ts';
import { waitFor } from './serviceProcess.ts';

export const tracingUrl = (): string => inject('tracingUrl');

export interface Workspace {
  id: string;
  apiKey: string;
}

/** Creates workspaces (and one key per workspace, or one key for all when shareKey) through the tenancy commands. */
export async function createWorkspaces(count = 1, options: { shareKey?: boolean } = {}): Promise<Workspace[]> {
  const config = loadConfig(inject('tracingEnv'));
  const log = new EventLog(config, 'test-admin');
  const tenancy = new TenancyService(config, log, createLogger('test-admin', 'warn'));
  try {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await tenancy.createWorkspace(`test-${Date.now()}-${i}`));
    if (options.shareKey) {
      const key = await tenancy.issueKey(ids, 'test key for several workspaces');
      return ids.map((id) => ({ id, apiKey: key }));
    }
    const out: Workspace[] = [];
    for (const id of ids) out.push({ id, apiKey: await tenancy.issueKey([id], 'test key') });
    return out;
  } finally {
    await log.close();
  }
}

export async function api(
  path: string,
  init: RequestInit & { apiKey?: string; json?: unknown } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers = new Headers(init.headers);
  if (init.apiKey) headers.set('x-api-key', init.apiKey);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const res = await fetch(tracingUrl() + path, { ...init, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Polls GET /runs/{id} until the run is readable and `ready(run)` holds. */
export async function waitForRun(
  apiKey: string,
  runId: string,
  ready: (run: any) => boolean = () => true,
  timeoutMs = 30_000,
): Promise<any> {
  let last: unknown = null;
  try {
    return await waitFor(
      `run ${runId}`,
      async () => {
        const res = await api(`/runs/${runId}`, { apiKey });
        last = { status: res.status, body: res.body };
        return res.status === 200 && ready(res.body) ? res.body : null;
      },
      timeoutMs,
      100,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last response: ${JSON.stringify(last).slice(0, 500)}`);
  }
}
