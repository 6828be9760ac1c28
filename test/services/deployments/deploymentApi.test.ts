// The control plane on the shared Kafka, two replicas of it, serving the API only (no replica
// deploys: the worker's part is deploymentWorker.test.ts): the deployment lifecycle (create,
// list, read, patch into a new revision, soft delete, force delete), upload URLs and the
// source_tarball_path rules of internal_source, redeploy's refusals, reserved secret names,
// every error row of the spec in its FastAPI shape, workspaces kept apart, secrets sealed in the
// topic, racing commands on two replicas decided by the topic's order, and the fold rebuilt from
// the topic equal to what is served.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Consumer, MessagesStreamModes, stringDeserializer } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { controlPlaneCall, startControlPlane, type ControlPlaneStack } from '../../support/controlPlane.ts';
import { repoRoot } from '../../support/serviceProcess.ts';
import { makeSourceTarball, uploadLikeTheCli } from '../../support/sourceTarball.ts';
import { createLogger } from '../../../platform/logger.ts';
import { EventLog } from '../../../platform/kafka/eventLog.ts';
import { topicName } from '../../../platform/kafka/topicAdmin.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { TenancyService } from '../../../services/tenancy/index.ts';
import { DeploymentState } from '../../../services/deployments/deploymentState.ts';
import { deploymentResponse } from '../../../services/deployments/deploymentResponse.ts';
import { newUploadObjectPath } from '../../../services/deployments/sourceUploads.ts';
import { DEFAULT_WORKSPACE_ID } from '../../../services/tenancy/index.ts';
import { DEPLOYMENT_SECRET } from '../../support/secretSweep.ts';

let cp: ControlPlaneStack;
let otherKey: string;
let otherWorkspaceId: string;

const call = (method: string, path: string, json?: unknown, { replica = 0, key = cp.apiKey } = {}) =>
  controlPlaneCall(cp.urls[replica]!, key, method, path, json);

// The suite's deployment secret: swept for in every answer, message and log (test/support/secretSweep.ts).
const SECRET = DEPLOYMENT_SECRET;
let names = 0;
const body = (overrides: Record<string, unknown> = {}) => ({
  name: `agent-${randomBytes(3).toString('hex')}-${names++}`,
  source: 'external_docker',
  source_config: { custom_url: null, resource_spec: null },
  source_revision_config: { image_uri: 'examples/agent-server', langgraph_config_path: 'langgraph.json' },
  secrets: [{ name: 'OPENAI_API_KEY', value: SECRET }],
  ...overrides,
});

const create = async (overrides: Record<string, unknown> = {}) => {
  const res = await call('POST', '/v2/deployments', body(overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

beforeAll(async () => {
  cp = await startControlPlane('deployments', 2, { CONTROL_PLANE_DEPLOYER: 'none' });
  // A second workspace, with a key of its own.
  const log = new EventLog(cp.config, 'test-admin');
  const tenancy = new TenancyService(cp.config, log, createLogger('test-admin', 'warn'));
  await tenancy.start();
  otherWorkspaceId = await tenancy.createWorkspace('other');
  otherKey = await tenancy.issueKey([otherWorkspaceId], 'other workspace');
  await tenancy.close();
  await log.close();
}, 180_000);

afterAll(async () => {
  await cp?.stop();
});

describe('lifecycle', () => {
  test('create answers the deployment with its first revision, CREATING then QUEUED (the deployer moves it on)', async () => {
    const d = await create();
    expect(d).toMatchObject({
      tenant_id: DEFAULT_WORKSPACE_ID,
      source: 'external_docker',
      status: 'AWAITING_DATABASE',
      active_revision_id: null,
      source_revision_config: { image_uri: 'examples/agent-server', langgraph_config_path: 'langgraph.json' },
      secrets: [{ name: 'OPENAI_API_KEY', value: '********' }],
    });
    expect(d.latest_revision_id).toMatch(/^[0-9a-f-]{36}$/);
    // Read from the other replica: the same deployment, and its revision QUEUED (never a fake DEPLOYED).
    expect((await call('GET', `/v2/deployments/${d.id}`, undefined, { replica: 1 })).body).toEqual(d);
    const revision = await call('GET', `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`, undefined, {
      replica: 1,
    });
    expect(revision).toMatchObject({
      status: 200,
      body: { id: d.latest_revision_id, status: 'QUEUED', source: 'external_docker' },
    });
    // Our field beside the contract's: the latest revision's status, on the deployment itself.
    expect((await call('GET', `/v2/deployments/${d.id}`, undefined, { replica: 1 })).body.latest_revision_status).toBe(
      'QUEUED',
    );
    expect((await call('GET', `/v2/deployments?deployment_ids=${d.id}`)).body.resources[0].latest_revision_status).toBe(
      'QUEUED',
    );
  });

  test('list filters by name, status and ids, newest first, and pages by the returned offset', async () => {
    const tag = randomBytes(3).toString('hex');
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await create({ name: `list-${tag}-${i}` }));
    const all = await call('GET', `/v2/deployments?name_contains=list-${tag}`);
    expect(all.status).toBe(200);
    expect(all.body.resources.map((d: { name: string }) => d.name)).toEqual([
      `list-${tag}-2`,
      `list-${tag}-1`,
      `list-${tag}-0`,
    ]);
    const first = await call('GET', `/v2/deployments?name_contains=list-${tag}&limit=2`);
    expect(first.body.resources).toHaveLength(2);
    const second = await call('GET', `/v2/deployments?name_contains=list-${tag}&limit=2&offset=${first.body.offset}`);
    expect(second.body.resources.map((d: { id: string }) => d.id)).toEqual([made[0].id]);
    const byId = await call('GET', `/v2/deployments?deployment_ids=${made[0].id},${made[2].id}`);
    expect(byId.body.resources.map((d: { id: string }) => d.id).sort()).toEqual([made[0].id, made[2].id].sort());
    expect((await call('GET', `/v2/deployments?name_contains=list-${tag}&status=READY`)).body.resources).toEqual([]);
  });

  test('create takes every deployment type the CLIs send, dev_zero (langgraph-cli’s default, serverless) included; list filters by it', async () => {
    const tag = randomBytes(3).toString('hex');
    for (const type of ['dev_zero', 'dev_free', 'dev', 'prod']) {
      const d = await create({
        name: `type-${tag}-${type.replace('_', '-')}`,
        source_config: { deployment_type: type },
      });
      expect(d.source_config.deployment_type).toBe(type);
    }
    const zero = await call('GET', `/v2/deployments?name_contains=type-${tag}&deployment_type=dev_zero`);
    expect(zero.body.resources.map((d: { name: string }) => d.name)).toEqual([`type-${tag}-dev-zero`]);
    const unknown = await call('POST', '/v2/deployments', body({ source_config: { deployment_type: 'dev_one' } }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({
      loc: ['body', 'source_config', 'deployment_type'],
      type: 'enum',
      input: 'dev_one',
    });
  });

  test('patch makes a new revision for revision config or secrets, none for source_config alone', async () => {
    const d = await create();
    const config = await call('PATCH', `/v2/deployments/${d.id}`, { source_config: { build_on_push: true } });
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({
      latest_revision_id: d.latest_revision_id,
      source_config: { build_on_push: true },
    });

    const image = await call(
      'PATCH',
      `/v2/deployments/${d.id}`,
      { source_revision_config: { image_uri: 'examples/agent-server-v2' } },
      { replica: 1 },
    );
    expect(image.status).toBe(200);
    expect(image.body.latest_revision_id).not.toBe(d.latest_revision_id);
    expect(image.body.source_revision_config).toEqual({
      image_uri: 'examples/agent-server-v2',
      langgraph_config_path: 'langgraph.json',
    });
    // The masked value sent back keeps the stored one; a new secret is added.
    const secrets = await call('PATCH', `/v2/deployments/${d.id}`, {
      secrets: [
        { name: 'OPENAI_API_KEY', value: '********' },
        { name: 'OTHER', value: 'x' },
      ],
    });
    expect(secrets.body.secrets).toEqual([
      { name: 'OPENAI_API_KEY', value: '********' },
      { name: 'OTHER', value: '********' },
    ]);

    const revisions = await call('GET', `/v2/deployments/${d.id}/revisions`);
    expect(revisions.body.resources.map((r: { id: string }) => r.id)).toEqual([
      secrets.body.latest_revision_id,
      image.body.latest_revision_id,
      d.latest_revision_id,
    ]);
    expect(revisions.body.offset).toBe(3);
    expect(revisions.body.resources.every((r: { status: string }) => r.status === 'QUEUED')).toBe(true);
  });

  test('delete soft-deletes (AWAITING_DELETE); force before that is a 400, after it a 204, then the id is a 404', async () => {
    const d = await create();
    const early = await call('DELETE', `/v2/deployments/${d.id}?force=true`);
    expect(early.status).toBe(400);
    expect(early.body.detail).toContain(d.id);
    expect(early.body.detail).toContain('AWAITING_DELETE');
    expect((await call('GET', `/v2/deployments/${d.id}`)).body.status).toBe('AWAITING_DATABASE');

    const soft = await call('DELETE', `/v2/deployments/${d.id}?delete_tracing_project=false`);
    expect(soft).toEqual({ status: 204, body: null });
    expect((await call('GET', `/v2/deployments/${d.id}`, undefined, { replica: 1 })).body.status).toBe(
      'AWAITING_DELETE',
    );
    // A soft-deleted deployment cannot be changed.
    const patch = await call('PATCH', `/v2/deployments/${d.id}`, { secrets: [] });
    expect(patch.status).toBe(400);
    expect(patch.body.detail).toContain('AWAITING_DELETE');

    expect(await call('DELETE', `/v2/deployments/${d.id}?force=True`, undefined, { replica: 1 })).toEqual({
      status: 204,
      body: null,
    });
    const gone = await call('GET', `/v2/deployments/${d.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.detail).toBe(`Deployment ID ${d.id} not found`);
    expect((await call('DELETE', `/v2/deployments/${d.id}`)).status).toBe(404);
  });
});

describe('errors, as the spec lists them', () => {
  test('an unknown id is a 404 whose detail names it, on every route that takes one', async () => {
    const id = randomUUID();
    for (const [method, path, json] of [
      ['GET', `/v2/deployments/${id}`],
      ['PATCH', `/v2/deployments/${id}`, { secrets: [] }],
      ['DELETE', `/v2/deployments/${id}`],
      ['DELETE', `/v2/deployments/${id}?force=true`],
      ['GET', `/v2/deployments/${id}/revisions`],
      ['GET', `/v2/deployments/${id}/revisions/${randomUUID()}`],
      ['POST', `/v2/deployments/${id}/revisions/${randomUUID()}/redeploy`],
      ['POST', `/v2/deployments/${id}/upload-url`],
    ] as const) {
      const res = await call(method, path, json);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.detail).toBe(`Deployment ID ${id} not found`);
    }
  });

  test('invalid parameters are a 422 HTTPValidationError: a non-UUID id, force=maybe', async () => {
    const badId = await call('DELETE', '/v2/deployments/not-a-uuid');
    expect(badId).toEqual({
      status: 422,
      body: {
        detail: [
          {
            loc: ['path', 'deployment_id'],
            msg: 'Input should be a valid UUID',
            type: 'uuid_parsing',
            input: 'not-a-uuid',
          },
        ],
      },
    });
    const d = await create();
    const maybe = await call('DELETE', `/v2/deployments/${d.id}?force=maybe`);
    expect(maybe).toEqual({
      status: 422,
      body: {
        detail: [
          {
            loc: ['query', 'force'],
            msg: 'Input should be a valid boolean, unable to interpret input',
            type: 'bool_parsing',
            input: 'maybe',
          },
        ],
      },
    });
    // Nothing was done: the deployment is untouched.
    expect((await call('GET', `/v2/deployments/${d.id}`)).body.status).toBe('AWAITING_DATABASE');
    const limit = await call('GET', '/v2/deployments?limit=0');
    expect(limit.status).toBe(422);
    expect(limit.body.detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'greater_than_equal', ctx: { ge: 1 } });
  });

  test('a DELETE without a body naming Content-Type: application/json (what generic clients send) deletes', async () => {
    const d = await create();
    const res = await fetch(`${cp.urls[0]}/v2/deployments/${d.id}`, {
      method: 'DELETE',
      headers: { 'x-api-key': cp.apiKey, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(204);
    expect((await call('GET', `/v2/deployments/${d.id}`)).body.status).toBe('AWAITING_DELETE');
  });

  test('a bad body is a 422 naming the field, and creates nothing', async () => {
    const before = (await call('GET', '/v2/deployments?limit=100')).body.resources.length;
    const { secrets: _omitted, ...noSecrets } = body();
    const missing = await call('POST', '/v2/deployments', noSecrets);
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'secrets'], msg: 'Field required', type: 'missing' });
    const source = await call('POST', '/v2/deployments', body({ source: 'ftp' }));
    expect(source.status).toBe(422);
    expect(source.body.detail[0]).toMatchObject({ loc: ['body', 'source'], type: 'enum', input: 'ftp' });
    const name = await call('POST', '/v2/deployments', body({ name: 'has_underscore' }));
    expect(name.body.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_pattern_mismatch' });
    const secret = await call('POST', '/v2/deployments', body({ secrets: [{ name: 'A' }] }));
    expect(secret.body.detail[0]).toMatchObject({ loc: ['body', 'secrets', 0, 'value'], type: 'missing' });
    const notJson = await fetch(`${cp.urls[0]}/v2/deployments`, {
      method: 'POST',
      headers: { 'x-api-key': cp.apiKey, 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect(notJson.status).toBe(422);
    expect(((await notJson.json()) as { detail: { type: string }[] }).detail[0]!.type).toBe('json_invalid');
    expect((await call('GET', '/v2/deployments?limit=100')).body.resources.length).toBe(before);
  });

  test('a name already taken in the workspace is a 409', async () => {
    const d = await create();
    const again = await call('POST', '/v2/deployments', body({ name: d.name }), { replica: 1 });
    expect(again.status).toBe(409);
  });

  test('no API key is a 401', async () => {
    const res = await fetch(`${cp.urls[0]}/v2/deployments`);
    expect(res.status).toBe(401);
  });
});

describe('internal_source: uploads and their object paths', () => {
  /** What `langgraph deploy` sends to create an internal_source deployment (langgraph-cli deploy.py, @langchain/langgraph-cli host-backend.mts). */
  const internalSource = (secrets: { name: string; value: string }[] = []) =>
    body({ source: 'internal_source', source_config: { deployment_type: 'dev' }, source_revision_config: {}, secrets });

  test('upload-url gives a PUT URL the CLIs’ upload works with and an object path; the CLIs’ PATCH with it makes the revision', async () => {
    const d = await create(internalSource([{ name: 'OPENAI_API_KEY', value: SECRET }]));
    // Its first revision has no source yet: it waits, and says for what.
    const first = (await call('GET', `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`)).body;
    expect(first).toMatchObject({ status: 'QUEUED', source: 'internal_source', source_revision_config: {} });
    expect(first.status_message).toContain(`POST /v2/deployments/${d.id}/upload-url`);

    const url = await call('POST', `/v2/deployments/${d.id}/upload-url`, undefined, { replica: 1 });
    expect(url.status, JSON.stringify(url.body)).toBe(200);
    expect(Object.keys(url.body).sort()).toEqual(['object_path', 'upload_url']);
    expect(url.body.object_path).toMatch(
      new RegExp(`^${DEFAULT_WORKSPACE_ID}/deployment-sources/${d.id}/[0-9a-f-]{36}\\.tar\\.gz$`),
    );
    expect(url.body.upload_url.startsWith(cp.env.S3_ENDPOINT!)).toBe(true);
    // Signed by the upload user, never the store's root user, and without a checksum of an empty
    // body (AWS S3 would hold the tarball to it and refuse the upload).
    const signed = new URL(url.body.upload_url).searchParams;
    expect(signed.get('X-Amz-Credential')).toMatch(new RegExp(`^${cp.config.S3_UPLOAD_ACCESS_KEY_ID}/`));
    expect(url.body.upload_url).not.toContain(cp.config.S3_ACCESS_KEY_ID);
    expect([...signed.keys()].filter((k) => /checksum/i.test(k))).toEqual([]);
    const scratch = mkdtempSync(join(tmpdir(), 'deployment-api-upload-'));
    try {
      makeSourceTarball(join(repoRoot, 'examples/deployable-agent'), join(scratch, 'source.tar.gz'));
      expect(await uploadLikeTheCli(url.body.upload_url, join(scratch, 'source.tar.gz'))).toBe(200);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    const patched = await call('PATCH', `/v2/deployments/${d.id}`, {
      revision_source: 'internal_source',
      source_revision_config: { source_tarball_path: url.body.object_path, langgraph_config_path: 'langgraph.json' },
      source_config: { install_command: 'npm ci' },
      secrets: [{ name: 'OPENAI_API_KEY', value: SECRET }],
      tracked_packages: ['langgraph:1.0.0'],
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({
      source: 'internal_source',
      source_config: { deployment_type: 'dev', install_command: 'npm ci' },
      source_revision_config: { source_tarball_path: url.body.object_path, langgraph_config_path: 'langgraph.json' },
    });
    const revision = (await call('GET', `/v2/deployments/${d.id}/revisions/${patched.body.latest_revision_id}`)).body;
    expect(revision).toMatchObject({ status: 'QUEUED', source: 'internal_source', status_message: null });
    // A new URL for each upload.
    expect((await call('POST', `/v2/deployments/${d.id}/upload-url`)).body.object_path).not.toBe(url.body.object_path);
  });

  test('upload-url is a 400 for other sources (the push-token rule’s words), and once soft-deleted', async () => {
    const docker = await create();
    const refused = await call('POST', `/v2/deployments/${docker.id}/upload-url`);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain("only available for 'internal_source' source deployments");
    const d = await create(internalSource());
    expect((await call('DELETE', `/v2/deployments/${d.id}`)).status).toBe(204);
    const deleted = await call('POST', `/v2/deployments/${d.id}/upload-url`);
    expect(deleted.status).toBe(400);
    expect(deleted.body.detail).toContain('AWAITING_DELETE');
  });

  test('source_tarball_path must be an upload of the workspace and belongs to internal_source; revision_source cannot change the source', async () => {
    const d = await create(internalSource());
    const revisions = async (id: string) =>
      (await call('GET', `/v2/deployments/${id}/revisions`)).body.resources.length;
    for (const path of [
      newUploadObjectPath(randomUUID(), d.id),
      'etc/passwd',
      `${DEFAULT_WORKSPACE_ID}/attachments/${'0'.repeat(64)}`,
    ]) {
      const res = await call('PATCH', `/v2/deployments/${d.id}`, {
        revision_source: 'internal_source',
        source_revision_config: { source_tarball_path: path },
      });
      expect(res.status, path).toBe(400);
      expect(res.body.detail).toContain('is not an upload of this workspace');
      const created = await call('POST', '/v2/deployments', {
        ...internalSource(),
        source_revision_config: { source_tarball_path: path },
      });
      expect(created.status, path).toBe(400);
    }
    expect(await revisions(d.id)).toBe(1);
    // An upload of the workspace will do at creation too (upload once, deploy it to several deployments).
    const ownUpload = newUploadObjectPath(DEFAULT_WORKSPACE_ID, d.id);
    const withUpload = await call('POST', '/v2/deployments', {
      ...internalSource(),
      source_revision_config: { source_tarball_path: ownUpload },
    });
    expect(withUpload.status, JSON.stringify(withUpload.body)).toBe(201);
    expect(
      (await call('GET', `/v2/deployments/${withUpload.body.id}/revisions/${withUpload.body.latest_revision_id}`)).body
        .status_message,
    ).toBeNull();

    const docker = await create();
    const onDocker = await call('PATCH', `/v2/deployments/${docker.id}`, {
      source_revision_config: { source_tarball_path: newUploadObjectPath(DEFAULT_WORKSPACE_ID, docker.id) },
    });
    expect(onDocker.status).toBe(400);
    expect(onDocker.body.detail).toContain('source_tarball_path is for internal_source revisions');
    const switched = await call('PATCH', `/v2/deployments/${docker.id}`, {
      revision_source: 'internal_source',
      source_revision_config: { image_uri: 'x' },
    });
    expect(switched.status).toBe(400);
    expect(switched.body.detail).toContain(
      "revision_source internal_source is not this deployment's source (external_docker)",
    );
    expect(await revisions(docker.id)).toBe(1);
  });
});

test('a secret named like a variable the platform sets is a 422 naming it, and nothing is created or changed', async () => {
  const before = (await call('GET', '/v2/deployments?limit=100')).body.resources.length;
  const secrets = [
    { name: 'OPENAI_API_KEY', value: 'x' },
    { name: 'PORT', value: '80' },
    { name: 'LANGSMITH_API_KEY', value: 'y' },
  ];
  const created = await call('POST', '/v2/deployments', body({ secrets }));
  expect(created.status).toBe(422);
  expect(created.body.detail).toEqual([
    expect.objectContaining({
      loc: ['body', 'secrets', 1, 'name'],
      type: 'value_error',
      input: 'PORT',
      msg: expect.stringContaining('PORT is set by the platform'),
    }),
    expect.objectContaining({ loc: ['body', 'secrets', 2, 'name'], type: 'value_error', input: 'LANGSMITH_API_KEY' }),
  ]);
  expect((await call('GET', '/v2/deployments?limit=100')).body.resources.length).toBe(before);
  const d = await create();
  const patched = await call('PATCH', `/v2/deployments/${d.id}`, {
    secrets: [{ name: 'LANGSMITH_TENANT_ID', value: randomUUID() }],
  });
  expect(patched.status).toBe(422);
  expect(patched.body.detail[0]).toMatchObject({ loc: ['body', 'secrets', 0, 'name'], input: 'LANGSMITH_TENANT_ID' });
  expect((await call('GET', `/v2/deployments/${d.id}`)).body.latest_revision_id).toBe(d.latest_revision_id);
});

test('redeploy: 404 for an unknown revision, 422 for a bad id, 400 for a revision never DEPLOYED or a soft-deleted deployment', async () => {
  const d = await create();
  const revision = `/v2/deployments/${d.id}/revisions`;
  const unknown = randomUUID();
  const missing = await call('POST', `${revision}/${unknown}/redeploy`);
  expect(missing.status).toBe(404);
  expect(missing.body.detail).toBe(`Revision ID ${unknown} of deployment ${d.id} not found`);
  const badId = await call('POST', `${revision}/not-a-uuid/redeploy`);
  expect(badId.status).toBe(422);
  expect(badId.body.detail[0]).toMatchObject({ loc: ['path', 'revision_id'], type: 'uuid_parsing' });
  // Its only revision is QUEUED (no replica deploys here): it never served.
  const queued = await call('POST', `${revision}/${d.latest_revision_id}/redeploy`, undefined, { replica: 1 });
  expect(queued.status).toBe(400);
  expect(queued.body.detail).toContain(
    `Revision ID ${d.latest_revision_id} is QUEUED: only a revision that was DEPLOYED can be redeployed`,
  );
  expect((await call('DELETE', `/v2/deployments/${d.id}`)).status).toBe(204);
  const deleted = await call('POST', `${revision}/${d.latest_revision_id}/redeploy`);
  expect(deleted.status).toBe(400);
  expect(deleted.body.detail).toContain('AWAITING_DELETE');
  expect((await call('GET', revision)).body.resources).toHaveLength(1);
});

test('another workspace sees none of the deployments: its key gets 404s and an empty list, on every route of the document', async () => {
  const d = await create();
  const key = otherKey;
  const covered = new Set<string>();
  /** The other workspace's call; `route` is the operation as the OpenAPI document names it. */
  const other = (route: string, path: string, json?: unknown) => {
    covered.add(route);
    return call(route.split(' ')[0]!, path, json, { key });
  };
  const rev = `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`;
  expect((await other('GET /v2/deployments/{deployment_id}', `/v2/deployments/${d.id}`)).status).toBe(404);
  expect(
    (await other('PATCH /v2/deployments/{deployment_id}', `/v2/deployments/${d.id}`, { secrets: [] })).status,
  ).toBe(404);
  expect((await other('DELETE /v2/deployments/{deployment_id}', `/v2/deployments/${d.id}`)).status).toBe(404);
  expect(
    (await other('GET /v2/deployments/{deployment_id}/revisions', `/v2/deployments/${d.id}/revisions`)).status,
  ).toBe(404);
  expect((await other('GET /v2/deployments/{deployment_id}/revisions/{revision_id}', rev)).status).toBe(404);
  expect(
    (await other('POST /v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', `${rev}/redeploy`)).status,
  ).toBe(404);
  expect(
    (await other('POST /v2/deployments/{deployment_id}/upload-url', `/v2/deployments/${d.id}/upload-url`)).status,
  ).toBe(404);
  expect((await other('GET /v2/deployments', '/v2/deployments')).body.resources).toEqual([]);
  const project = `/v1/projects/${d.id}`;
  for (const method of ['POST', 'GET']) {
    const logs = (route: string, path: string) => other(`${method} ${route}`, path, method === 'POST' ? {} : undefined);
    expect(
      (
        await logs(
          '/v1/projects/{project_id}/revisions/{revision_id}/build_logs',
          `${project}/revisions/${d.latest_revision_id}/build_logs`,
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await logs(
          '/v1/projects/{project_id}/revisions/{revision_id}/deploy_logs',
          `${project}/revisions/${d.latest_revision_id}/deploy_logs`,
        )
      ).status,
    ).toBe(404);
    expect((await logs('/v1/projects/{project_id}/deploy_logs', `${project}/deploy_logs`)).status).toBe(404);
  }
  // Its own workspace, which is what the route answers (deployed servers verify keys with it).
  expect((await other('GET /workspaces/current', '/workspaces/current')).body).toMatchObject({ id: otherWorkspaceId });
  // Every operation with tenant data in the running server's document has a case above (creating
  // one's own deployment, the last, is below): a new route cannot slip through untested.
  covered.add('POST /v2/deployments');
  const doc = (await call('GET', '/docs/json')).body as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  const secured = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]) => (op.security?.length ? [`${method.toUpperCase()} ${path}`] : [])),
  );
  expect(secured.filter((op) => !covered.has(op))).toEqual([]);
  // Its own deployment may take the same name: names are per workspace.
  expect((await call('POST', '/v2/deployments', body({ name: d.name }), { key })).status).toBe(201);
  expect((await call('GET', `/v2/deployments/${d.id}`)).body.status).toBe('AWAITING_DATABASE');
});

test('secrets are never returned and are only sealed in the topic', async () => {
  const d = await create();
  const served = JSON.stringify([
    d,
    (await call('GET', `/v2/deployments/${d.id}`)).body,
    (await call('GET', '/v2/deployments?limit=100')).body,
  ]);
  expect(served).not.toContain(SECRET);

  const topic = topicName(cp.config, TOPICS.deployments);
  const consumer = new Consumer({
    clientId: 'test-secrets',
    groupId: `test-secrets-${randomBytes(4).toString('hex')}`,
    bootstrapBrokers: cp.config.KAFKA_BROKERS.split(','),
    deserializers: { key: stringDeserializer, headerKey: stringDeserializer, headerValue: stringDeserializer },
  });
  const end = (await consumer.listOffsets({ topics: [topic] })).get(topic)![0]!;
  const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST, autocommit: false });
  let sealedSeen = false;
  for await (const message of stream) {
    const value = (message.value as Buffer).toString('latin1');
    expect(value).not.toContain(SECRET);
    if (value.includes(d.id) && value.includes('sb1.')) sealedSeen = true;
    if (message.offset + 1n >= end) break;
  }
  await stream.close();
  await consumer.close(true);
  expect(sealedSeen).toBe(true);
  for (const n of [0, 1])
    expect(
      readFileSync(join(repoRoot, '.local', 'logs', 'test', `${cp.id}-control-plane-${n}.log`), 'utf8'),
    ).not.toContain(SECRET);
});

describe('racing commands on two replicas are decided by the topic order', () => {
  test('two force deletes of one AWAITING_DELETE deployment: one 204, one 404, whichever replica', async () => {
    for (let i = 0; i < 4; i++) {
      const d = await create();
      expect((await call('DELETE', `/v2/deployments/${d.id}`)).status).toBe(204);
      const results = await Promise.all(
        [0, 1].map((replica) => call('DELETE', `/v2/deployments/${d.id}?force=true`, undefined, { replica })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([204, 404]);
      for (const replica of [0, 1])
        expect((await call('GET', `/v2/deployments/${d.id}`, undefined, { replica })).status).toBe(404);
    }
  });

  test('patch against delete: the patch either landed before the delete (200, its revision kept) or was refused (400, no revision)', async () => {
    for (let i = 0; i < 4; i++) {
      const d = await create();
      const [patch, del] = await Promise.all([
        call(
          'PATCH',
          `/v2/deployments/${d.id}`,
          { source_revision_config: { image_uri: `v${i}` } },
          { replica: i % 2 },
        ),
        call('DELETE', `/v2/deployments/${d.id}`, undefined, { replica: (i + 1) % 2 }),
      ]);
      expect(del.status).toBe(204);
      const views = await Promise.all(
        [0, 1].map((replica) => call('GET', `/v2/deployments/${d.id}/revisions`, undefined, { replica })),
      );
      expect(views[0]!.body).toEqual(views[1]!.body);
      const ids = views[0]!.body.resources.map((r: { id: string }) => r.id);
      if (patch.status === 200) expect(ids).toEqual([patch.body.latest_revision_id, d.latest_revision_id]);
      else {
        expect(patch.status).toBe(400);
        expect(ids).toEqual([d.latest_revision_id]);
      }
      expect((await call('GET', `/v2/deployments/${d.id}`)).body.status).toBe('AWAITING_DELETE');
    }
  });

  test('two creates with one name on two replicas: one 201, one 409', async () => {
    const name = `race-${randomBytes(3).toString('hex')}`;
    const results = await Promise.all(
      [0, 1].map((replica) => call('POST', '/v2/deployments', body({ name }), { replica })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect((await call('GET', `/v2/deployments?name_contains=${name}`)).body.resources).toHaveLength(1);
  });
});

test('the fold rebuilt from the topic equals what the replicas serve', async () => {
  const logger = createLogger('test-fold', 'warn');
  const [a, b] = [new DeploymentState(cp.config, logger), new DeploymentState(cp.config, logger)];
  await Promise.all([a.start(), b.start()]);
  try {
    expect(JSON.stringify(a.snapshot())).toBe(JSON.stringify(b.snapshot()));
    const rebuilt = a
      .deployments(DEFAULT_WORKSPACE_ID)
      .map((d) => deploymentResponse(d, cp.env.CONTROL_PLANE_PUBLIC_URL!));
    expect(rebuilt.length).toBeGreaterThan(10);
    for (const replica of [0, 1]) {
      const served = [];
      for (let offset = 0; ; ) {
        const page = await call('GET', `/v2/deployments?limit=100&offset=${offset}`, undefined, { replica });
        served.push(...page.body.resources);
        if (page.body.resources.length < 100) break;
        offset = page.body.offset;
      }
      expect(served).toEqual(rebuilt);
    }
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('the OpenAPI document is version 0.1.0 and lists the deployment routes', async () => {
  const doc = (await (await fetch(`${cp.urls[0]}/docs/json`)).json()) as {
    info: { version: string };
    paths: Record<string, object>;
  };
  expect(doc.info.version).toBe('0.1.0');
  expect(Object.keys(doc.paths)).toEqual(
    expect.arrayContaining([
      '/v2/deployments',
      '/v2/deployments/{deployment_id}',
      '/v2/deployments/{deployment_id}/revisions/{revision_id}',
      '/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy',
      '/v2/deployments/{deployment_id}/upload-url',
    ]),
  );
});
