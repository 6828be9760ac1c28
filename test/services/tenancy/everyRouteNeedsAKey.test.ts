// Issue 19, item 6: no key, and a key that is not one, get 401 on every route that holds tenant
// data, in every service with keys: the tracing API, the agent server, the control plane and the
// example chat app (issue 32, item 6). The
// routes come from each running service's OpenAPI document (an operation that declares
// `security`), so a new route cannot slip through; the operations that declare none are public
// and must be the known few (health, metrics, info, the document itself, the A2A agent cards,
// the use of a presigned feedback token). The
// request is whatever the route would take, with made-up ids and an empty JSON body: the key is
// checked before anything else, so no 400, 404 or 422 may come first. (Workspace isolation of each
// route: tenantIsolation.test.ts, workspaceIsolation.test.ts, deploymentApi.test.ts, and the chat
// app's test/examples/chatApp.test.ts.)
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startAgentServer, type AgentServer } from '../../support/agentServer.ts';
import { startControlPlane, type ControlPlaneStack } from '../../support/controlPlane.ts';
import { startChatApp, type ChatAppProcess } from '../../support/chatApp.ts';
import { DOCS_OPERATIONS } from '../../support/docsOperations.ts';

type Operation = { security?: unknown[]; requestBody?: unknown };
type Document = { paths: Record<string, Record<string, Operation>> };

let agent: AgentServer;
let controlPlane: ControlPlaneStack;
let chatApp: ChatAppProcess;

beforeAll(async () => {
  [agent, controlPlane, chatApp] = await Promise.all([
    startAgentServer('needs-a-key'),
    startControlPlane('needs-a-key', 1, { CONTROL_PLANE_DEPLOYER: 'none' }),
    startChatApp('needs-a-key'),
  ]);
}, 180_000);
afterAll(async () => {
  await Promise.all([agent?.stop(), controlPlane?.stop(), chatApp?.stop()]);
});

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head'];

/** The document's operations as `METHOD /path`, with and without `security`. */
async function operations(url: string): Promise<{ secured: Array<[string, string, Operation]>; open: string[] }> {
  const doc = (await (await fetch(`${url}/docs/json`)).json()) as Document;
  const secured: Array<[string, string, Operation]> = [];
  const open: string[] = [];
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      if (op.security && op.security.length > 0) secured.push([method.toUpperCase(), path, op]);
      else open.push(`${method.toUpperCase()} ${path}`);
    }
  return { secured, open };
}

/** The path with every {param} made up: a UUID (what most ids are), or a word for the wildcard. */
const filled = (path: string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === '*' ? 'x' : randomUUID()));

async function expectEvery401(url: string, minimum: number, publicOnes: string[]): Promise<number> {
  const { secured, open } = await operations(url);
  expect(secured.length).toBeGreaterThanOrEqual(minimum);
  expect(open.filter((op) => !DOCS_OPERATIONS.includes(op)).sort()).toEqual([...publicOnes].sort());
  const wrong: string[] = [];
  for (const [method, path, op] of secured) {
    for (const [label, headers] of [
      ['no key', {}],
      ['a wrong key', { 'x-api-key': `lsk_not_a_key_${randomUUID().replaceAll('-', '')}` }],
    ] as const) {
      const hasBody = op.requestBody !== undefined && method !== 'GET' && method !== 'HEAD';
      const res = await fetch(`${url}${filled(path)}`, {
        method,
        headers: { ...headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
        body: hasBody ? '{}' : undefined,
      });
      await res.arrayBuffer();
      if (res.status !== 401) wrong.push(`${method} ${path} with ${label}: ${res.status}`);
    }
  }
  expect(wrong).toEqual([]);
  return secured.length;
}

describe('no key or a wrong key: 401 on every route with tenant data', () => {
  test('tracing API', async () => {
    const n = await expectEvery401(inject('tracingUrl'), 60, [
      'GET /ok',
      'GET /ready',
      'GET /metrics',
      'GET /info',
      'GET /api/v1/info',
      // a presigned feedback token is its own credential
      'GET /feedback/tokens/{token_id}',
      'POST /feedback/tokens/{token_id}',
      'GET /api/v1/feedback/tokens/{token_id}',
      'POST /api/v1/feedback/tokens/{token_id}',
    ]);
    console.log(`tracing API: ${n} operations, each 401 without a key and with a wrong one`);
  });
  test('agent server', async () => {
    // The agent cards are public: A2A clients discover an agent before they hold a key.
    const cards = [
      'GET /.well-known/agent-card.json',
      'GET /a2a/{assistant_id}',
      'GET /a2a/{assistant_id}/.well-known/agent-card.json',
      'GET /a2a/{assistant_id}/.well-known/agent.json',
    ];
    const n = await expectEvery401(agent.url, 30, ['GET /ok', 'GET /ready', 'GET /metrics', 'GET /info', ...cards]);
    console.log(`agent server: ${n} operations, each 401 without a key and with a wrong one`);
  });
  test('control plane', async () => {
    const n = await expectEvery401(controlPlane.urls[0]!, 8, ['GET /ok', 'GET /ready', 'GET /metrics']);
    console.log(`control plane: ${n} operations, each 401 without a key and with a wrong one`);
  });
  test('example chat app', async () => {
    // Its page (GET /, hidden from the document) is public too: the sign-in is on it.
    const n = await expectEvery401(chatApp.url, 8, ['GET /ok', 'GET /ready', 'GET /metrics']);
    console.log(`example chat app: ${n} operations, each 401 without a key and with a wrong one`);
  });
});
