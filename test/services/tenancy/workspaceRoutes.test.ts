// GET /workspaces on the tracing API (the shared stack): the workspaces of the caller's key, by
// name, for a key of several without X-Tenant-Id (which every other route requires of it), and
// only the key's own; the key is refused as elsewhere.
import { expect, test } from 'vitest';
import { api, createWorkspaces } from '../../support/tracingClient.ts';

test('a key of several workspaces lists them without X-Tenant-Id (which other routes require of it), under / and /api/v1', async () => {
  const shared = await createWorkspaces(2, { shareKey: true });
  const [other] = await createWorkspaces(1);
  const key = shared[0]!.apiKey;
  expect((await api('/sessions', { apiKey: key })).body.error).toBe('TENANT_ID_REQUIRED');
  for (const prefix of ['', '/api/v1']) {
    const res = await api(`${prefix}/workspaces`, { apiKey: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // createWorkspaces names them test-<time>-0, test-<time>-1: in that order by name.
    expect(res.body.map((w: { id: string }) => w.id)).toEqual(shared.map((w) => w.id));
    expect(res.body[0].display_name).toMatch(/^test-\d+-0$/);
  }
  const own = await api('/workspaces', { apiKey: other!.apiKey });
  expect(own.body.map((w: { id: string }) => w.id)).toEqual([other!.id]);
});

test('no key, or an unknown one, is a 401', async () => {
  expect((await api('/workspaces')).body.error).toBe('MISSING_API_KEY');
  const unknown = await api('/workspaces', { apiKey: 'lsv2_not_a_key_of_this_server' });
  expect([unknown.status, unknown.body.error]).toEqual([401, 'INVALID_API_KEY']);
});
