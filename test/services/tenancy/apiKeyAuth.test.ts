// Tenancy's authentication hook on the tracing API (the shared stack), which takes bearer tokens
// as the control plane does (test/services/processes/controlPlaneApp.test.ts covers every
// refusal there): a token from the admin CLI writes and reads in its workspace, under / and
// /api/v1 and /api/v2 alike; the document declares the scheme.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, inject, test } from 'vitest';
import { loadConfig } from '../../../platform/config.ts';
import { api, createWorkspaces, tracingUrl } from '../../support/tracingClient.ts';
import { repoRoot } from '../../support/serviceProcess.ts';
import { hashApiKey } from '../../../services/tenancy/apiKeys.ts';
import { BearerTokens } from '../../../services/tenancy/bearerTokens.ts';

const issueToken = (key: string): string =>
  JSON.parse(
    execFileSync(process.execPath, [join(repoRoot, 'services/tenancy/adminCli.ts'), 'issue-token', '--key', key], {
      env: { ...process.env, ...inject('tracingEnv') },
      encoding: 'utf8',
    }),
  ).token;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

test("a token writes and reads in its key's workspace on the tracing API; another workspace sees nothing of it", async () => {
  const [mine, theirs] = await createWorkspaces(2);
  const token = issueToken(mine!.apiKey);
  const name = `bearer-${randomUUID()}`;
  for (const prefix of ['', '/api/v1']) {
    const created = await api(`${prefix}/sessions`, {
      method: 'POST',
      headers: bearer(token),
      json: { name: `${name}${prefix}` },
    });
    expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
    expect(created.body.tenant_id).toBe(mine!.id);
    expect((await api(`/sessions/${created.body.id}`, { apiKey: mine!.apiKey })).status).toBe(200);
    expect((await api(`/sessions/${created.body.id}`, { apiKey: theirs!.apiKey })).status).toBe(404);
    expect((await api(`${prefix}/sessions/${created.body.id}`, { headers: bearer(token) })).body.name).toBe(
      `${name}${prefix}`,
    );
  }
  const v2 = await api('/api/v2/threads/query', { method: 'POST', headers: bearer(token), json: {} });
  expect(v2.status, JSON.stringify(v2.body)).not.toBe(401);
  expect((await api('/api/v2/threads/query', { method: 'POST', headers: bearer(`${token}x`), json: {} })).status).toBe(
    401,
  );
});

test('the same refusals as on the control plane: no credentials, an expired token', async () => {
  const none = await api('/sessions');
  expect(none.status).toBe(401);
  expect(none.body).toEqual({
    error: 'MISSING_API_KEY',
    detail: expect.stringContaining('Authorization header (Bearer <token>)'),
  });
  const [workspace] = await createWorkspaces(1);
  const tokens = BearerTokens.fromConfig(loadConfig(inject('tracingEnv')))!;
  const expired = await tokens.issue({
    keyHash: hashApiKey(workspace!.apiKey),
    workspaceId: workspace!.id,
    ttlSeconds: 1,
    now: new Date(Date.now() - 60_000),
  });
  const res = await api('/sessions', { headers: bearer(expired.token) });
  expect(res).toMatchObject({
    status: 401,
    body: { error: 'TOKEN_EXPIRED', detail: expect.stringContaining('expired at') },
  });
});

test('the OpenAPI document declares the bearer scheme as an alternative to the API key', async () => {
  const doc = (await (await fetch(`${tracingUrl()}/docs/json`)).json()) as {
    components: { securitySchemes: Record<string, unknown> };
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  expect(doc.paths['/sessions']!.get!.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
  expect(doc.paths['/info']!.get!.security).toBeUndefined(); // public routes stay public
});
