// How the agent server authenticates (services/agent-server/auth/callers.ts). By default it takes
// the tracing API's keys: every operation of its OpenAPI document but the public ones (health,
// /info, docs, agent cards) answers 401 without a key or with a wrong one, with the error codes
// of the tracing API, and the document says which need X-Api-Key. The routes come from the
// document of the running server, so a route added later is checked too. X-Tenant-Id picks the
// workspace of a key linked to several, as on the tracing API. AGENT_SERVER_AUTH=none turns
// authentication off, never silently: a warning at start-up and in /info.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentServer, type AgentServer } from '../../../support/agentServer.ts';
import { repoRoot } from '../../../support/serviceProcess.ts';
import { createWorkspaces } from '../../../support/tracingClient.ts';
import { DOCS_OPERATIONS, DOCS_STATIC_FILE } from '../../../support/docsOperations.ts';

/** Operations anyone may call: A2A clients read agent cards before they authenticate. */
const PUBLIC = new Set([
  'GET /ok',
  'GET /ready',
  'GET /metrics',
  'GET /info',
  'GET /.well-known/agent-card.json',
  'GET /a2a/{assistant_id}',
  'GET /a2a/{assistant_id}/.well-known/agent-card.json',
  'GET /a2a/{assistant_id}/.well-known/agent.json',
  ...DOCS_OPERATIONS,
]);

let server: AgentServer;
let open: AgentServer;
beforeAll(async () => {
  [server, open] = await Promise.all([
    startAgentServer('api-keys'),
    startAgentServer('auth-off', { env: { AGENT_SERVER_AUTH: 'none' } }),
  ]);
});
afterAll(() => Promise.all([server?.stop(), open?.stop()]));

interface Operation {
  route: string;
  method: string;
  path: string;
  doc: any;
}

async function operations(of: AgentServer): Promise<Operation[]> {
  const doc = (await (await fetch(`${of.url}/docs/json`)).json()) as any;
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      route: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      doc: op,
    })),
  );
}

/** A request for the operation: ids that exist nowhere, a body of the right kind. */
function call(server: AgentServer, op: Operation, headers: Record<string, string>): Promise<Response> {
  const path = op.path.replace(/\{(\w+|\*)\}/g, (_, name: string) =>
    name === 'assistant_id' ? 'agent' : name === '*' ? DOCS_STATIC_FILE : randomUUID(),
  );
  const body =
    op.path === '/runs/batch'
      ? [{ assistant_id: 'agent' }]
      : op.path.startsWith('/a2a/')
        ? { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }
        : { assistant_id: 'agent' };
  const hasBody = op.doc.requestBody !== undefined;
  return fetch(`${server.url}${path}`, {
    method: op.method,
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...headers },
    body: hasBody ? JSON.stringify(body) : undefined,
  });
}

describe('API keys (the default)', () => {
  it('every operation but the public ones answers 401 without a key and with a wrong one', async () => {
    const ops = await operations(server);
    const guarded = ops.filter((op) => !PUBLIC.has(op.route));
    expect(guarded.length).toBeGreaterThan(30);
    expect(
      ops
        .filter((op) => PUBLIC.has(op.route))
        .map((op) => op.route)
        .sort(),
    ).toEqual([...PUBLIC].sort());
    for (const op of guarded) {
      const none = await call(server, op, {});
      expect(none.status, `${op.route} without a key`).toBe(401);
      expect(await none.json(), op.route).toEqual({
        error: 'MISSING_API_KEY',
        detail: expect.stringContaining('X-Api-Key'),
      });
      const wrong = await call(server, op, { 'x-api-key': 'lsk_not-a-key-of-anyone' });
      expect(wrong.status, `${op.route} with a wrong key`).toBe(401);
      expect(((await wrong.json()) as any).error, op.route).toBe('INVALID_API_KEY');
    }
  });

  it('the public operations answer without a key', async () => {
    for (const op of (await operations(server)).filter((o) => PUBLIC.has(o.route))) {
      const res = await call(server, op, {});
      expect(res.status, op.route).toBe(op.route === 'GET /.well-known/agent-card.json' ? 400 : 200); // 400: no assistant named
    }
    expect((await fetch(`${server.url}/docs/json`)).status).toBe(200);
  });

  it('the OpenAPI document requires X-Api-Key on the guarded operations, and says how they refuse', async () => {
    for (const op of await operations(server)) {
      if (PUBLIC.has(op.route)) {
        expect(op.doc.security, op.route).toBeUndefined();
        continue;
      }
      expect(op.doc.security, op.route).toEqual([{ apiKey: [] }]);
      expect(op.doc.parameters, op.route).toContainEqual(
        expect.objectContaining({
          in: 'header',
          name: 'X-Tenant-Id',
          schema: expect.objectContaining({ format: 'uuid' }),
        }),
      );
      expect(Object.keys(op.doc.responses), op.route).toEqual(expect.arrayContaining(['400', '401', '403']));
    }
  });

  it('a valid key opens every route, in its workspace; a key made after the server started works at once', async () => {
    const [ws] = await createWorkspaces(1);
    const headers = { 'x-api-key': ws!.apiKey, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/threads`, { method: 'POST', headers, body: '{}' });
    expect(created.status).toBe(200);
    const thread = (await created.json()) as any;
    expect((await fetch(`${server.url}/threads/${thread.thread_id}`, { headers })).status).toBe(200);
    // The bootstrap key is the default workspace's: the thread is not there.
    expect((await fetch(`${server.url}/threads/${thread.thread_id}`, { headers: server.headers })).status).toBe(404);
  });

  it('X-Tenant-Id picks the workspace of a key linked to several: 400 without it, 403 for a workspace not the key’s', async () => {
    const [a, b] = await createWorkspaces(2, { shareKey: true });
    const key = a!.apiKey;
    const get = (headers: Record<string, string>) =>
      fetch(`${server.url}/threads/search`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
        body: '{}',
      });
    const without = await get({});
    expect(without.status).toBe(400);
    expect(((await without.json()) as any).error).toBe('TENANT_ID_REQUIRED');
    const malformed = await get({ 'x-tenant-id': 'nope' });
    expect([malformed.status, ((await malformed.json()) as any).error]).toEqual([422, 'INVALID_TENANT_ID']);
    const other = await get({ 'x-tenant-id': randomUUID() });
    expect(other.status).toBe(403);
    expect(((await other.json()) as any).error).toBe('WORKSPACE_FORBIDDEN');

    const inA = (await (
      await fetch(`${server.url}/threads`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'x-tenant-id': a!.id, 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as any;
    const searched = async (workspace: string) =>
      ((await (await get({ 'x-tenant-id': workspace })).json()) as any[]).map((t) => t.thread_id);
    expect(await searched(a!.id)).toEqual([inA.thread_id]);
    expect(await searched(b!.id)).toEqual([]);
  });

  it('/info says how callers are authenticated', async () => {
    expect(((await (await fetch(`${server.url}/info`)).json()) as any).auth).toEqual({ mode: 'api_key' });
  });
});

describe('AGENT_SERVER_AUTH=none', () => {
  it('serves without a key, and says so at start-up and in /info', async () => {
    expect(
      (
        await fetch(`${open.url}/threads`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(200);
    const info = (await (await fetch(`${open.url}/info`)).json()) as any;
    expect(info.auth).toEqual({ mode: 'none', warning: expect.stringContaining('authentication is off') });
    const log = readFileSync(join(repoRoot, '.local', 'logs', 'test', 'agent-server-auth-off.log'), 'utf8');
    const warnings = log
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter(
        (entry) => entry.pid === open.process.pid && entry.level === 40 && /authentication is off/.test(entry.msg),
      );
    expect(warnings).toHaveLength(1);
  });

  it('documents no security requirement', async () => {
    for (const op of await operations(open)) expect(op.doc.security, op.route).toBeUndefined();
  });
});
