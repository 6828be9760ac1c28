// Schema evolution: events written with an older schema version must still be read by the
// current code. ProjectCreated v1 events (no reference dataset, no start/end time) are
// appended, byte for byte as an earlier release wrote them, to the shared stack's projects
// topic; the running API must list those projects and take runs into them.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { decodeEvent, encodeEventAtVersion } from '../../schemas/registry.ts';
import { loadConfig } from '../../platform/config.ts';
import { EventLog } from '../../platform/kafka/eventLog.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { projectIdForName, projectKey } from '../../projections/projects/projectRegistry.ts';
import { api, createWorkspaces, waitForRun, type Workspace } from '../support/tracingClient.ts';

const v1Project = (tenantId: string, projectId: string, name: string, createdAt: number) => ({
  tenant_id: tenantId,
  project_id: projectId,
  name,
  description: 'written by v1',
  extra: JSON.stringify({ metadata: { release: 'old' } }),
  created_at: createdAt,
});

describe('ProjectCreated v1 → v2', () => {
  test('a v1 event decodes into the newest shape, the added fields null', () => {
    const payload = v1Project('t', 'p', 'n', 42);
    const encoded = encodeEventAtVersion('ProjectCreated', 1, payload);
    expect(encoded.headers['schema-version']).toBe('1');
    const decoded = decodeEvent(new Map(Object.entries(encoded.headers)), encoded.value);
    expect(decoded).toEqual({
      name: 'ProjectCreated',
      version: 1,
      payload: { ...payload, reference_dataset_id: null, start_time: null, end_time: null },
    });
  });

  describe('on a running stack', () => {
    let ws: Workspace;
    const byNameProject = `old-by-name-${randomUUID().slice(0, 8)}`;
    const explicitId = randomUUID();
    const createdAt = Date.UTC(2024, 0, 2, 3, 4, 5) * 1000 + 123_456;

    beforeAll(async () => {
      [ws] = (await createWorkspaces(1)) as [Workspace];
      const log = new EventLog(loadConfig(inject('tracingEnv')), 'evolution-test');
      try {
        for (const [id, name] of [
          [projectIdForName(ws.id, byNameProject), byNameProject],
          [explicitId, `old-explicit-${randomUUID().slice(0, 8)}`],
        ] as const) {
          const encoded = encodeEventAtVersion('ProjectCreated', 1, v1Project(ws.id, id, name, createdAt));
          await log.appendRaw(TOPICS.projects, { key: projectKey(ws.id, id), ...encoded });
        }
      } finally {
        await log.close();
      }
    });

    test('the projects are listed, with reference_dataset_id null and start_time from created_at', async () => {
      const listed = (await api('/sessions?name_contains=old-', { apiKey: ws.apiKey })).body;
      expect(listed).toHaveLength(2);
      for (const p of listed)
        expect(p).toMatchObject({
          tenant_id: ws.id,
          description: 'written by v1',
          extra: { metadata: { release: 'old' } },
          reference_dataset_id: null,
          start_time: '2024-01-02T03:04:05.123456Z',
          end_time: null,
        });
      expect((await api(`/sessions/${explicitId}`, { apiKey: ws.apiKey })).status).toBe(200);
      expect((await api(`/sessions?reference_free=true&id=${explicitId}`, { apiKey: ws.apiKey })).body).toHaveLength(1);
    });

    test('runs go into them by session_id and by session_name, without a new project', async () => {
      const byId = uuidv7();
      const byName = uuidv7();
      const post = (id: string, session: Record<string, string>) =>
        api('/runs', {
          method: 'POST',
          apiKey: ws.apiKey,
          json: { id, name: 'r', run_type: 'chain', inputs: {}, ...session },
        });
      expect((await post(byId, { session_id: explicitId })).status).toBe(202);
      expect((await post(byName, { session_name: byNameProject })).status).toBe(202);
      expect((await waitForRun(ws.apiKey, byId)).session_id).toBe(explicitId);
      expect((await waitForRun(ws.apiKey, byName)).session_id).toBe(projectIdForName(ws.id, byNameProject));
      expect((await api('/sessions', { apiKey: ws.apiKey })).body).toHaveLength(2);
    });
  });
});

describe('ApiKeyIssued and RevisionStatusChanged v1 → v2', () => {
  test('a v1 key decodes as a key issued to no deployment', () => {
    const payload = { key_hash: 'h', key_prefix: 'lsk_abcd', description: 'a person', created_at: 1 };
    const encoded = encodeEventAtVersion('ApiKeyIssued', 1, payload);
    expect(decodeEvent(new Map(Object.entries(encoded.headers)), encoded.value)).toEqual({
      name: 'ApiKeyIssued',
      version: 1,
      payload: { ...payload, deployment_id: null, revision_id: null },
    });
  });

  test('a v1 revision status decodes without a commit and without how its server authenticates', () => {
    const payload = {
      tenant_id: 't',
      deployment_id: 'd',
      revision_id: 'r',
      status: 'DEPLOYED',
      detail: null,
      server_url: 'http://127.0.0.1:1',
      changed_at: 2,
    };
    const encoded = encodeEventAtVersion('RevisionStatusChanged', 1, payload);
    expect(decodeEvent(new Map(Object.entries(encoded.headers)), encoded.value)).toEqual({
      name: 'RevisionStatusChanged',
      version: 1,
      payload: { ...payload, repo_commit_sha: null, server_auth: null },
    });
  });
});
