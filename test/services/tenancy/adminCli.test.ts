// The admin CLI creates workspaces and keys that the running API accepts at once, and takes
// workspaces away from keys.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { inject } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { api } from '../../support/tracingClient.ts';
import { waitFor } from '../../support/serviceProcess.ts';

const cli = (...args: string[]) =>
  JSON.parse(
    execFileSync(process.execPath, [join(import.meta.dirname, '../../../services/tenancy/adminCli.ts'), ...args], {
      env: { ...process.env, ...inject('tracingEnv') },
      encoding: 'utf8',
    }),
  );

test('create-workspace and create-key give a key the API accepts, for that workspace only', async () => {
  const { workspace_id } = cli('create-workspace', '--name', 'cli-test');
  const { api_key } = cli('create-key', '--workspace', workspace_id);
  expect(api_key).toMatch(/^lsk_/);
  const id = uuidv7();
  expect(
    (await api('/runs', { method: 'POST', apiKey: api_key, json: { id, name: 'r', run_type: 'chain' } })).status,
  ).toBe(202);
  expect(
    (
      await api('/runs', {
        method: 'POST',
        apiKey: api_key,
        headers: { 'x-tenant-id': uuidv7() },
        json: { id: uuidv7(), name: 'r', run_type: 'chain' },
      })
    ).status,
  ).toBe(403);
  const listing = cli('list');
  expect(listing.workspaces.map((w: { id: string }) => w.id)).toContain(workspace_id);
  expect(JSON.stringify(listing)).not.toContain(api_key); // only hashes are stored
});

test('unlink-key takes a workspace away from a key: the API refuses the key there, and keeps serving its other workspace', async () => {
  const first = cli('create-workspace', '--name', 'cli-unlink-a').workspace_id;
  const second = cli('create-workspace', '--name', 'cli-unlink-b').workspace_id;
  const { api_key } = cli('create-key', '--workspace', first, '--workspace', second);
  const post = (workspace: string) =>
    api('/runs', {
      method: 'POST',
      apiKey: api_key,
      headers: { 'x-tenant-id': workspace },
      json: { id: uuidv7(), name: 'r', run_type: 'chain' },
    });
  expect((await post(first)).status).toBe(202);
  expect(cli('unlink-key', '--key', api_key, '--workspace', first)).toEqual({
    unlinked: first,
    workspace_ids: [second],
  });
  // Each API process folds the unlink from the topic: a moment after the CLI appended it.
  await waitFor('the API to fold the unlink', async () => (await post(first)).status === 403);
  expect((await post(second)).status).toBe(202);
  expect(() => cli('unlink-key', '--key', api_key, '--workspace', first)).toThrow();
});

test('issue-token refuses, naming why, a lifetime it does not take and a key or workspace it cannot act for', async () => {
  const cliError = (...args: string[]): string => {
    try {
      cli(...args);
    } catch (err) {
      return String((err as { stderr: string }).stderr).trim();
    }
    throw new Error(`admin ${args.join(' ')} succeeded`);
  };
  const first = cli('create-workspace', '--name', 'cli-token-a').workspace_id;
  const second = cli('create-workspace', '--name', 'cli-token-b').workspace_id;
  const { api_key } = cli('create-key', '--workspace', first, '--workspace', second);
  expect(cliError('issue-token', '--key', api_key, '--workspace', first, '--ttl', '8d')).toBe(
    '--ttl "8d" is longer than the longest a token may live, 7d',
  );
  expect(cliError('issue-token', '--key', api_key, '--workspace', first, '--ttl', '1 hour')).toContain(
    'is not a duration',
  );
  expect(cliError('issue-token', '--workspace', first)).toBe('issue-token needs --key');
  expect(cliError('issue-token', '--key', api_key, '--workspace', first, '--workspace', second)).toContain(
    'a token acts in one workspace',
  );
  expect(cliError('issue-token', '--key', api_key)).toBe(
    'no token: the key is linked to several workspaces: name one with --workspace',
  );
  expect(cliError('issue-token', '--key', api_key, '--workspace', uuidv7())).toMatch(
    /^no token: this API key has no access to workspace/,
  );
  expect(cliError('issue-token', '--key', 'lsk_not-a-key-of-this-platform')).toBe('no token: the API key is not valid');
  const issued = cli('issue-token', '--key', api_key, '--workspace', second, '--ttl', '90s');
  expect(issued).toEqual({
    token: expect.stringMatching(/^eyJ/),
    workspace_id: second,
    expires_at: expect.any(String),
  });
  expect((await api('/sessions', { headers: { authorization: `Bearer ${issued.token}` } })).status).toBe(200);
});
