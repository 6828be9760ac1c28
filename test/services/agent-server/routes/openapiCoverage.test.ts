// Every route the agent server serves is in its OpenAPI document, and every one says what it
// takes and what it answers: a response schema for each status it declares, and schemas for its
// path parameters, its query string and its body. The routes are the ones fastify registered
// (collected as they are registered, shared ones included), not the ones the document lists, so
// a route hidden from the document or added without schemas is caught. The server runs in this
// process, with the example assistants and the shared stack's API keys (as `npm start` runs it).
import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../../../platform/config.ts';
import { createLogger } from '../../../../platform/logger.ts';
import { buildAgentServerApp, type AgentServerApp } from '../../../../services/processes/agentServerApp.ts';
import { EXAMPLES_CONFIG } from '../../../support/agentServer.ts';

interface ServedRoute {
  /** `METHOD /path`, as registered (`:param`, `*`). */
  name: string;
  method: string;
  url: string;
  /** The route's options: hooks registered after the collector complete its schema, so it is read once the server is ready. */
  options: RouteOptions;
}

/** POST routes that take no body (their input is the path and the query string). */
/** Routes of the LangGraph API deliberately not served: always a 404 saying so. */
const NOT_SERVED = new Set(['POST /ui/:assistant_id']);
const TAKE_NO_BODY = new Set(['POST /threads/:thread_id/runs/:run_id/cancel', 'POST /threads/:thread_id/copy']);

let server: AgentServerApp;
const registered: ServedRoute[] = [];
/** The routes a client calls: fastify's own HEAD twin of each GET is left out (it answers as the GET does, without a body). */
let served: ServedRoute[];

beforeAll(async () => {
  const config = loadConfig({ ...inject('tracingEnv'), AGENT_SERVER_CONFIG: EXAMPLES_CONFIG, LOG_LEVEL: 'warn' });
  server = await buildAgentServerApp(config, createLogger('openapi-coverage', 'warn'), undefined, {
    onRoute: (options) => {
      for (const method of [options.method].flat())
        registered.push({ name: `${method} ${options.url}`, method, url: options.url, options });
    },
  });
  await server.app.ready();
  const gets = new Set(registered.filter((r) => r.method === 'GET').map((r) => withoutTrailingSlash(r.url)));
  served = registered.filter(
    (r) => !(r.method === 'HEAD' && gets.has(withoutTrailingSlash(r.url))) && r.method !== 'OPTIONS',
  );
});
afterAll(() => server?.close());

/**
 * Fastify serves a prefix's root route both with and without a trailing slash (Swagger UI's page:
 * /docs and /docs/), under either name, so the two are one route here.
 */
const withoutTrailingSlash = (path: string) => path.replace(/(.)\/$/, '$1');

type Schema = Record<string, any>;
const schemaOf = (route: ServedRoute): Schema => (route.options.schema ?? {}) as Schema;
/** A response entry says what the body is: a type, a schema per media type, or a composition. */
const describesBody = (entry: Schema) =>
  ['type', 'content', 'properties', '$ref', 'anyOf', 'oneOf', 'allOf', 'const', 'enum'].some((k) => k in entry);
const pathParams = (url: string) => [...url.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? '*');
/** Reads the query string in the handler's own text (a helper it calls is not seen). */
const readsQuery = (route: ServedRoute) => /\.query\b/.test(String(route.options.handler));

async function documentedOperations(app: FastifyInstance): Promise<Set<string>> {
  const res = await app.inject('/docs/json');
  expect(res.statusCode).toBe(200);
  const doc = res.json() as { paths: Record<string, Record<string, unknown>> };
  // `{name}` back to `:name` (and `{*}` to `*`).
  const asRegistered = (path: string) =>
    withoutTrailingSlash(path.replace(/\{\*\}/g, '*').replace(/\{(\w+)\}/g, ':$1'));
  return new Set(
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${asRegistered(path)}`),
    ),
  );
}

describe('every route the agent server serves', () => {
  it('is collected: the LangGraph API, the agent streaming protocol, A2A, the operational routes and the document itself', () => {
    const names = served.map((r) => r.name);
    for (const name of [
      'GET /ok',
      'GET /info',
      'GET /docs',
      'GET /docs/json',
      'POST /runs/wait',
      'POST /threads/:thread_id/commands',
      'POST /threads/:thread_id/stream/events',
      'POST /a2a/:assistant_id',
      'GET /.well-known/agent-card.json',
    ]) {
      expect(names).toContain(name);
    }
  });

  it('is listed in the OpenAPI document with its method', async () => {
    const documented = await documentedOperations(server.app);
    expect(served.filter((r) => !documented.has(withoutTrailingSlash(r.name))).map((r) => r.name)).toEqual([]);
    expect(served.filter((r) => schemaOf(r).hide).map((r) => r.name)).toEqual([]);
  });

  it('declares a response schema for every status it answers, a success among them', () => {
    const missing: string[] = [];
    for (const route of served) {
      const responses = (schemaOf(route).response ?? {}) as Record<string, Schema>;
      if (!NOT_SERVED.has(route.name) && !Object.keys(responses).some((status) => /^[23]/.test(status)))
        missing.push(`${route.name}: no success response`);
      for (const [status, entry] of Object.entries(responses))
        if (!describesBody(entry)) missing.push(`${route.name}: ${status} without a schema`);
    }
    expect(missing).toEqual([]);
  });

  it('has schemas for its path parameters, its query string and its body', () => {
    const missing: string[] = [];
    for (const route of served) {
      const schema = schemaOf(route);
      for (const param of pathParams(route.url))
        if (!schema.params?.properties?.[param]) missing.push(`${route.name}: path parameter ${param}`);
      if (readsQuery(route) && !schema.querystring) missing.push(`${route.name}: query string`);
      if (['POST', 'PUT', 'PATCH'].includes(route.method) && !TAKE_NO_BODY.has(route.name) && !schema.body)
        missing.push(`${route.name}: body`);
    }
    expect(missing).toEqual([]);
  });

  it('documents a stream as text/event-stream (its events are written as they come, not serialized)', () => {
    const streams = served.filter(
      (r) => r.url.endsWith('/stream') || r.url.endsWith('/stream/events') || r.name === 'POST /a2a/:assistant_id',
    );
    expect(streams.length).toBeGreaterThanOrEqual(5);
    for (const route of streams)
      expect(Object.keys(schemaOf(route).response?.[200]?.content ?? {}), route.name).toContain('text/event-stream');
  });
});

it('serves the document as it generates it (its response schema drops nothing)', async () => {
  const res = await server.app.inject('/docs/json');
  expect(res.body).toBe(JSON.stringify(server.app.swagger()));
});
