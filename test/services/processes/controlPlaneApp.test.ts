// The control plane's authentication, on a control plane of our own (API only, no deployer) on
// the shared Kafka: `Authorization: Bearer` with a token the admin CLI issues, as the alternative
// to X-Api-Key. A token acts in its one workspace, until it expires or its key loses that
// workspace; every other token is a 401 that says why; X-Api-Key works as before.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startControlPlane, type ControlPlaneStack } from '../../support/controlPlane.ts';
import { repoRoot, waitFor } from '../../support/serviceProcess.ts';
import { createLogger } from '../../../platform/logger.ts';
import { EventLog } from '../../../platform/kafka/eventLog.ts';
import { DEFAULT_WORKSPACE_ID, TenancyService } from '../../../services/tenancy/index.ts';
import { hashApiKey } from '../../../services/tenancy/apiKeys.ts';
import { BearerTokens } from '../../../services/tenancy/bearerTokens.ts';

let cp: ControlPlaneStack;
/** A second workspace, with a key of its own. */
let other: { workspaceId: string; key: string };
/** A key of both workspaces (the default one and `other`), for unlinking. */
let sharedKey: string;

/** The admin CLI, in the control plane's environment (its Kafka topics, its SECRETS_ENCRYPTION_KEY). */
const cli = (...args: string[]) =>
  JSON.parse(
    execFileSync(process.execPath, [join(repoRoot, 'services/tenancy/adminCli.ts'), ...args], {
      env: { ...process.env, ...cp.env },
      encoding: 'utf8',
    }),
  );
const issueToken = (key: string, ...args: string[]): { token: string; workspace_id: string; expires_at: string } =>
  cli('issue-token', '--key', key, ...args);

/** A call with the given headers only (no API key unless given): status and parsed body. */
async function call(
  method: string,
  path: string,
  headers: Record<string, string>,
  json?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${cp.urls[0]}${path}`, {
    method,
    headers: { ...headers, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}
const bearer = (token: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });
const deployment = (name: string) => ({
  name: `${name}-${Math.random().toString(36).slice(2, 8)}`,
  source: 'external_docker',
  source_config: {},
  source_revision_config: { image_uri: 'examples/agent-server' },
  secrets: [],
});

beforeAll(async () => {
  cp = await startControlPlane('bearer', 1, { CONTROL_PLANE_DEPLOYER: 'none' });
  const log = new EventLog(cp.config, 'test-admin');
  const tenancy = new TenancyService(cp.config, log, createLogger('test-admin', 'warn'));
  await tenancy.start();
  const workspaceId = await tenancy.createWorkspace('other');
  other = { workspaceId, key: await tenancy.issueKey([workspaceId], 'other workspace') };
  sharedKey = await tenancy.issueKey([DEFAULT_WORKSPACE_ID, workspaceId], 'both workspaces');
  await tenancy.close();
  await log.close();
}, 180_000);

afterAll(async () => {
  await cp?.stop();
});

test("a token from the admin CLI creates and reads a deployment with Bearer alone, in its key's workspace; X-Api-Key sees the same", async () => {
  const issued = issueToken(cp.apiKey, '--ttl', '10m');
  expect(issued.workspace_id).toBe(DEFAULT_WORKSPACE_ID);
  expect(decodeJwt(issued.token).exp! * 1000).toBe(Date.parse(issued.expires_at));

  const created = await call('POST', '/v2/deployments', bearer(issued.token), deployment('bearer'));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.tenant_id).toBe(DEFAULT_WORKSPACE_ID);
  const read = await call('GET', `/v2/deployments/${created.body.id}`, bearer(issued.token));
  expect(read).toEqual({ status: 200, body: created.body });
  // The scheme in any case; X-Tenant-Id may be sent when it is the token's own workspace.
  expect(
    (
      await call('GET', `/v2/deployments/${created.body.id}`, {
        authorization: `bearer ${issued.token}`,
        'x-tenant-id': DEFAULT_WORKSPACE_ID,
      })
    ).status,
  ).toBe(200);

  expect(await call('GET', `/v2/deployments/${created.body.id}`, { 'x-api-key': cp.apiKey })).toEqual({
    status: 200,
    body: created.body,
  });
  // A request with an API key is judged by its key, whatever its Authorization header says.
  expect(
    (
      await call('GET', `/v2/deployments/${created.body.id}`, {
        'x-api-key': cp.apiKey,
        authorization: 'Bearer not-a-token',
      })
    ).status,
  ).toBe(200);
  expect(
    (await call('GET', `/v2/deployments/${created.body.id}`, { 'x-api-key': 'lsk_unknown-key-0000000000' })).status,
  ).toBe(401);
});

test("a token acts in its own workspace only: another workspace's deployment is a 404, and X-Tenant-Id cannot move it", async () => {
  const theirs = await call('POST', '/v2/deployments', { 'x-api-key': other.key }, deployment('theirs'));
  expect(theirs.status).toBe(201);
  const { token } = issueToken(cp.apiKey);
  expect(await call('GET', `/v2/deployments/${theirs.body.id}`, bearer(token))).toMatchObject({
    status: 404,
    body: { detail: expect.stringContaining(`Deployment ID ${theirs.body.id} not found`) },
  });
  expect(
    (await call('GET', '/v2/deployments?limit=100', bearer(token))).body.resources.map((d: { id: string }) => d.id),
  ).not.toContain(theirs.body.id);
  const moved = await call(
    'GET',
    `/v2/deployments/${theirs.body.id}`,
    bearer(token, { 'x-tenant-id': other.workspaceId }),
  );
  expect(moved).toEqual({
    status: 403,
    body: {
      error: 'WORKSPACE_FORBIDDEN',
      detail: `this bearer token acts in workspace ${DEFAULT_WORKSPACE_ID} only, not in ${other.workspaceId} (X-Tenant-Id)`,
    },
  });
  // Their own token reads it.
  expect((await call('GET', `/v2/deployments/${theirs.body.id}`, bearer(issueToken(other.key).token))).status).toBe(
    200,
  );
});

test('a token of a key created after the control plane checked its first tokens is taken, once the key is folded', async () => {
  expect((await call('GET', '/v2/deployments', bearer(issueToken(cp.apiKey).token))).status).toBe(200);
  const { api_key } = cli('create-key', '--workspace', other.workspaceId);
  const { token } = issueToken(api_key);
  // Checking a token never waits for Kafka: until this process has folded the new key, the token is refused as unknown.
  const listed = await waitFor("the control plane to take the new key's token", async () => {
    const res = await call('GET', '/v2/deployments', bearer(token));
    if (res.status === 401)
      expect(res.body).toEqual({
        error: 'INVALID_TOKEN',
        detail: 'the API key this bearer token was issued with is not known to this server',
      });
    return res.status === 200 ? res : null;
  });
  expect(listed.body.resources.every((d: { tenant_id: string }) => d.tenant_id === other.workspaceId)).toBe(true);
});

describe('refused tokens: a 401 that says why', () => {
  test('an expired token says it expired, and when', async () => {
    const tokens = BearerTokens.fromConfig(cp.config)!;
    const { token, expiresAt } = await tokens.issue({
      keyHash: hashApiKey(cp.apiKey),
      workspaceId: DEFAULT_WORKSPACE_ID,
      ttlSeconds: 60,
      now: new Date(Date.now() - 3600_000),
    });
    const res = await call('GET', '/v2/deployments', bearer(token));
    expect(res).toEqual({
      status: 401,
      body: {
        error: 'TOKEN_EXPIRED',
        detail: expect.stringContaining(`the bearer token expired at ${expiresAt.toISOString()}`),
      },
    });
  });

  test('a token altered after issue (moved to another workspace, or its signature changed) does not verify', async () => {
    const { token } = issueToken(cp.apiKey);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const moved = Buffer.from(JSON.stringify({ ...decodeJwt(token), workspace_id: other.workspaceId })).toString(
      'base64url',
    );
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    for (const altered of [`${header}.${moved}.${signature}`, `${header}.${payload}.${flipped}`]) {
      const res = await call('GET', '/v2/deployments', bearer(altered));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: 'INVALID_TOKEN',
        detail: expect.stringContaining("the bearer token's signature does not verify"),
      });
    }
  });

  test('a token of a server with another secrets key does not verify', async () => {
    const foreign = new BearerTokens(Buffer.alloc(32, 7));
    const { token } = await foreign.issue({
      keyHash: hashApiKey(cp.apiKey),
      workspaceId: DEFAULT_WORKSPACE_ID,
      ttlSeconds: 600,
    });
    expect((await call('GET', '/v2/deployments', bearer(token))).body.error).toBe('INVALID_TOKEN');
  });

  test('no credentials, another scheme, or a token that is not one', async () => {
    const none = await call('GET', '/v2/deployments', {});
    expect(none).toEqual({
      status: 401,
      body: { error: 'MISSING_API_KEY', detail: expect.stringContaining('Authorization header (Bearer <token>)') },
    });
    expect((await call('GET', '/v2/deployments', { authorization: '' })).body.error).toBe('MISSING_API_KEY');
    const basic = await call('GET', '/v2/deployments', { authorization: 'Basic dXNlcjpwYXNz' });
    expect(basic).toEqual({
      status: 401,
      body: {
        error: 'INVALID_TOKEN',
        detail: 'the bearer token is malformed: the Authorization header must be "Bearer <token>"',
      },
    });
    const notJwt = await call('GET', '/v2/deployments', bearer(cp.apiKey));
    expect(notJwt).toEqual({
      status: 401,
      body: { error: 'INVALID_TOKEN', detail: expect.stringContaining('the bearer token is malformed') },
    });
  });

  test("a key unlinked from the token's workspace ends the token there (TOKEN_REVOKED); its token for another workspace still works", async () => {
    const forOther = issueToken(sharedKey, '--workspace', other.workspaceId);
    const forDefault = issueToken(sharedKey, '--workspace', DEFAULT_WORKSPACE_ID);
    expect(forOther.workspace_id).toBe(other.workspaceId);
    expect((await call('GET', '/v2/deployments', bearer(forOther.token))).status).toBe(200);

    cli('unlink-key', '--key', sharedKey, '--workspace', other.workspaceId);
    // The control plane folds the unlink from the tenancy topic: a moment after the CLI appended it.
    const revoked = await waitFor('the control plane to fold the unlink', async () => {
      const res = await call('GET', '/v2/deployments', bearer(forOther.token));
      return res.status === 401 ? res : null;
    });
    expect(revoked.body).toEqual({
      error: 'TOKEN_REVOKED',
      detail: `the API key this bearer token was issued with no longer has access to workspace ${other.workspaceId}`,
    });
    expect((await call('GET', '/v2/deployments', bearer(forDefault.token))).status).toBe(200);
    expect(() => issueToken(sharedKey, '--workspace', other.workspaceId)).toThrow(
      /no token: this API key has no access to workspace/,
    );
  });
});

test('the OpenAPI document declares the bearer scheme as the alternative on every /v2 operation', async () => {
  const doc = (await (await fetch(`${cp.urls[0]}/docs/json`)).json()) as {
    components: { securitySchemes: Record<string, unknown> };
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  const operations = Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/v2/'))
    .flatMap(([, methods]) => Object.values(methods));
  expect(operations.length).toBeGreaterThan(5);
  for (const op of operations) expect(op.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
});
