// The agent server's contract, as its OpenAPI document states it and as it behaves: every route
// has its request schemas (bodies, UUID path ids with `format: uuid`), declares every status it
// can answer with its body (401/400/403 from authentication, 404 for ids, 409, 413, 422), and a
// request that does not match is a 422 naming the field. Bodies larger than
// AGENT_SERVER_BODY_LIMIT_BYTES (25 MiB by default) are refused with a 413 that names the limit
// and the setting, before they are read whole; a caller without a key gets its 401 first.
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentServer, type AgentServer } from '../../../support/agentServer.ts';
import { DOCS_OPERATIONS } from '../../../support/docsOperations.ts';

let server: AgentServer;
let small: AgentServer;
let doc: any;
beforeAll(async () => {
  [server, small] = await Promise.all([
    startAgentServer('contract'),
    startAgentServer('small-bodies', { env: { AGENT_SERVER_BODY_LIMIT_BYTES: '4096' } }),
  ]);
  doc = await (await fetch(`${server.url}/docs/json`)).json();
});
afterAll(() => Promise.all([server?.stop(), small?.stop()]));

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, path, method, op })),
  );
const PUBLIC_PATHS = new Set(['/ok', '/ready', '/metrics', '/info', ...DOCS_OPERATIONS.map((op) => op.split(' ')[1]!)]);
/** The JSON-RPC endpoint answers its own errors (HTTP 200, JSON-RPC error objects). */
const JSON_RPC = 'POST /a2a/{assistant_id}';
/** The agent streaming protocol's commands: answered with the protocol's own error body. */
const PROTOCOL_COMMANDS = 'POST /threads/{thread_id}/commands';

describe('the OpenAPI document', () => {
  it('has a request body schema on every operation that takes a body', () => {
    const withoutBody = operations().filter(
      ({ method, op }) => ['post', 'patch', 'put'].includes(method) && !op.requestBody,
    );
    expect(withoutBody.map((o) => o.route).sort()).toEqual([
      'POST /threads/{thread_id}/copy',
      'POST /threads/{thread_id}/runs/{run_id}/cancel',
    ]);
    const runBody = doc.paths['/threads/{thread_id}/runs/wait'].post.requestBody.content['application/json'].schema;
    expect(runBody.required).toEqual(['assistant_id']);
    expect(Object.keys(runBody.properties)).toEqual(
      expect.arrayContaining(['input', 'command', 'config', 'stream_mode', 'multitask_strategy', 'if_not_exists']),
    );
  });

  it('types thread, run and checkpoint ids as UUIDs, the assistant id (a UUID or a graph name) and a subgraph namespace as strings', () => {
    for (const { route, path, op } of operations()) {
      if (PUBLIC_PATHS.has(path)) continue;
      for (const param of op.parameters ?? []) {
        if (param.in !== 'path') continue;
        if (param.name === 'assistant_id' || param.name === 'namespace')
          expect(param.schema, route).toMatchObject({ type: 'string', minLength: 1 });
        else expect(param.schema, `${route} ${param.name}`).toMatchObject({ type: 'string', format: 'uuid' });
      }
    }
  });

  it('declares the statuses each operation can answer, errors with their {error, detail} body', () => {
    for (const { route, path, op } of operations()) {
      if (PUBLIC_PATHS.has(path)) continue;
      const statuses = Object.keys(op.responses);
      const pathParams = (op.parameters ?? []).filter((p: any) => p.in === 'path');
      const guarded = !route.startsWith('GET /a2a/') && !route.startsWith('GET /.well-known/');
      if (guarded) expect(statuses, route).toEqual(expect.arrayContaining(['400', '401', '403']));
      if (route === JSON_RPC) {
        expect(statuses, route).toEqual(expect.arrayContaining(['200', '400', '413']));
        continue;
      }
      if (op.requestBody) expect(statuses, route).toEqual(expect.arrayContaining(['413', '422']));
      if (pathParams.length > 0 || op.requestBody) expect(statuses, route).toContain('422');
      if (pathParams.some((p: any) => p.name !== 'assistant_id') || route.startsWith('GET /assistants/'))
        expect(statuses, route).toContain('404');
      for (const status of statuses.filter((s) => s >= '400')) {
        const body = op.responses[status].content?.['application/json']?.schema;
        // A protocol command is refused with the protocol's ErrorResponse {type, id, error, message}, or the platform's body.
        if (route === PROTOCOL_COMMANDS && (body?.anyOf || body?.properties?.type)) {
          for (const form of body.anyOf ?? [body])
            expect(Object.keys(form.properties), `${route} ${status}`).toEqual(
              expect.arrayContaining(form.properties.type ? ['type', 'id', 'error', 'message'] : ['error', 'detail']),
            );
          continue;
        }
        if (guarded)
          expect(body?.properties, `${route} ${status}`).toMatchObject({
            error: { type: 'string' },
            detail: { type: 'string' },
          });
      }
    }
    expect(Object.keys(doc.paths['/threads/{thread_id}/runs/{run_id}'].delete.responses)).toContain('409');
    expect(Object.keys(doc.paths['/threads'].post.responses)).toContain('409');
  });
});

describe('validation', () => {
  const post = (path: string, json: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...server.headers, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    });
  it('answers 422 naming the field', async () => {
    const cases: [Promise<Response>, RegExp][] = [
      [post('/threads/search', { limit: 5000 }), /limit must be <= 1000/],
      [post('/threads', { thread_id: 'nope' }), /thread_id must match format "uuid"/],
      [fetch(`${server.url}/threads/nope`, { headers: server.headers }), /thread_id must match format "uuid"/],
      [post('/runs/wait', {}), /must have required property 'assistant_id'/],
      [
        post('/runs/wait', { assistant_id: 'agent', stream_mode: ['values', 'tokens'] }),
        /stream_mode\/1 must be equal to one of the allowed values: values, updates, messages, messages-tuple, custom, debug, tasks, checkpoints, events/,
      ],
      [
        post('/runs/wait', { assistant_id: 'agent', multitask_strategy: 'later' }),
        /multitask_strategy must be equal to one of the allowed values: reject, rollback, interrupt, enqueue/,
      ],
    ];
    for (const [response, detail] of cases) {
      const res = await response;
      expect(res.status, String(detail)).toBe(422);
      expect(await res.json()).toEqual({ error: 'VALIDATION_ERROR', detail: expect.stringMatching(detail) });
    }
  });
});

describe('what a request asks that the thread cannot give', () => {
  it('a state update of a thread no graph has run on is a 409 that says what to do, not a 422 (its body is valid)', async () => {
    const { thread_id } = (await (
      await fetch(`${server.url}/threads`, {
        method: 'POST',
        headers: { ...server.headers, 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { thread_id: string };
    const res = await fetch(`${server.url}/threads/${thread_id}/state`, {
      method: 'POST',
      headers: { ...server.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ values: { messages: [] } }),
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      error: 'CONFLICT',
      detail: expect.stringMatching(
        /has no graph yet: run an assistant on it first, or create it with metadata.graph_id/,
      ),
    });
  });
});

describe('JSON nested deeper than the limit of all JSON taken in (256 levels)', () => {
  const deep = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  it('is a 422 naming the limit on the LangGraph routes, before the graph sees it', async () => {
    for (const [path, body] of [
      ['/threads', `{"metadata":${deep(5000)}}`],
      ['/runs/wait', `{"assistant_id":"agent","input":${deep(5000)}}`],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { ...server.headers, 'content-type': 'application/json' },
        body,
      });
      expect(res.status, path).toBe(422);
      expect(await res.json()).toEqual({
        error: 'JSON_TOO_DEEP',
        detail:
          'the request body nests objects and arrays deeper than 256 levels, the limit for JSON sent to this service',
      });
    }
  });

  it('is a JSON-RPC invalid request naming the limit on the A2A endpoint', async () => {
    const body = `{"jsonrpc":"2.0","id":"1","method":"message/send","params":{"message":${deep(5000)}}}`;
    const res = await fetch(`${server.url}/a2a/agent`, {
      method: 'POST',
      headers: { ...server.headers, 'content-type': 'application/json', accept: 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { error: unknown }).error).toEqual({
      code: -32600,
      message: expect.stringMatching(/nests objects and arrays deeper than 256 levels/),
    });
  });
});

describe('the body limit', () => {
  /**
   * The answer to a POST that declares a body of `bytes` (Content-Length) and sends none of it: a
   * body over the limit is refused on its declared length alone, before anything is read. (Sending
   * it would race the server closing the connection after its answer: the client could see a
   * broken pipe instead of the 413.)
   */
  const answerToDeclared = (url: string, headers: Record<string, string>, bytes: number) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'content-length': String(bytes) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => {
            resolve({ status: res.statusCode!, body: JSON.parse(text) });
            req.destroy();
          });
        },
      );
      req.on('error', reject);
      req.flushHeaders();
    });

  it('refuses a 26 MiB body with 413 naming the 25 MiB limit and its setting, on every kind of route', async () => {
    for (const path of ['/threads', '/threads/search', '/runs/wait', '/a2a/agent']) {
      const res = await answerToDeclared(`${server.url}${path}`, server.headers, 26 * 1024 * 1024);
      expect(res.status, path).toBe(413);
      expect(res.body).toEqual({
        error: 'BODY_TOO_LARGE',
        detail: 'the request body exceeds the limit of 26214400 bytes (AGENT_SERVER_BODY_LIMIT_BYTES)',
      });
    }
  });

  it('answers a caller without a key 401 before it reads the body', async () => {
    expect((await answerToDeclared(`${server.url}/threads`, {}, 26 * 1024 * 1024)).status).toBe(401);
  });

  it('is AGENT_SERVER_BODY_LIMIT_BYTES', async () => {
    const body = (bytes: number) => JSON.stringify({ metadata: { padding: 'x'.repeat(bytes) } });
    expect(
      (
        await fetch(`${small.url}/threads`, {
          method: 'POST',
          headers: { ...small.headers, 'content-type': 'application/json' },
          body: body(3000),
        })
      ).status,
    ).toBe(200);
    const refused = await answerToDeclared(`${small.url}/threads`, small.headers, 5000);
    expect(refused.status).toBe(413);
    expect(refused.body.detail).toBe(
      'the request body exceeds the limit of 4096 bytes (AGENT_SERVER_BODY_LIMIT_BYTES)',
    );
  });
});

describe('what generic HTTP clients send', () => {
  const json = { 'content-type': 'application/json' };
  it('a body-less request naming Content-Type: application/json has no body', async () => {
    const thread = (await (
      await fetch(`${server.url}/threads`, { method: 'POST', headers: { ...server.headers, ...json } })
    ).json()) as { thread_id: string };
    expect(thread.thread_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      (await fetch(`${server.url}/threads/search`, { method: 'POST', headers: { ...server.headers, ...json } })).status,
    ).toBe(200);
    expect(
      (
        await fetch(`${server.url}/threads/${thread.thread_id}`, {
          method: 'DELETE',
          headers: { ...server.headers, ...json },
        })
      ).status,
    ).toBe(204);
  });

  it('a gzip-encoded JSON body is decoded, on the LangGraph routes and the A2A endpoint', async () => {
    const gzipped = (value: unknown) => gzipSync(Buffer.from(JSON.stringify(value)));
    const headers = { ...server.headers, ...json, 'content-encoding': 'gzip' };
    const created = await fetch(`${server.url}/threads`, {
      method: 'POST',
      headers,
      body: gzipped({ metadata: { zipped: true } }),
    });
    expect(created.status).toBe(200);
    expect(((await created.json()) as { metadata: unknown }).metadata).toMatchObject({ zipped: true });
    const rpc = await fetch(`${server.url}/a2a/agent`, {
      method: 'POST',
      headers: { ...headers, accept: 'application/json' },
      body: gzipped({ jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { id: 'nope' } }),
    });
    const answer = (await rpc.json()) as { id: unknown; error?: { code: number } };
    expect(answer.id).toBe(7);
    expect(answer.error?.code).not.toBe(-32700);
    const unknown = await fetch(`${server.url}/threads`, {
      method: 'POST',
      headers: { ...headers, 'content-encoding': 'br' },
      body: '{}',
    });
    expect([unknown.status, ((await unknown.json()) as { error: string }).error]).toEqual([
      415,
      'UNSUPPORTED_CONTENT_ENCODING',
    ]);
  });

  it('a gzip body that decodes to more than the limit is a 413', async () => {
    const bomb = gzipSync(Buffer.from(JSON.stringify({ metadata: { padding: 'x'.repeat(100_000) } })));
    expect(bomb.length).toBeLessThan(4096);
    const res = await fetch(`${small.url}/threads`, {
      method: 'POST',
      headers: { ...small.headers, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect([res.status, ((await res.json()) as { detail: string }).detail]).toEqual([
      413,
      'the request body exceeds the limit of 4096 bytes (AGENT_SERVER_BODY_LIMIT_BYTES)',
    ]);
  });
});
