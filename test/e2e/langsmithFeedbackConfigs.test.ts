// Feedback configs through the official clients, unchanged: the `langsmith` npm client
// (createFeedbackConfig, listFeedbackConfigs, updateFeedbackConfig, addFeedbackCategories,
// removeFeedbackCategories, deleteFeedbackConfig) and the Python client
// (test/e2e/python/feedback_configs.py), which validates every answer against its own model.
import { randomUUID } from 'node:crypto';
import { Client } from 'langsmith';
import { beforeAll, describe, expect, test } from 'vitest';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';
import { createWorkspaces, tracingUrl, type Workspace } from '../support/tracingClient.ts';
import { collect } from '../support/asyncItems.ts';

let pyenv: PythonEnv;
let jsWorkspace: Workspace;
let pyWorkspace: Workspace;
beforeAll(async () => {
  [pyenv, [jsWorkspace, pyWorkspace]] = await Promise.all([
    ensurePythonEnv(),
    createWorkspaces(2) as Promise<[Workspace, Workspace]>,
  ]);
}, 20 * 60_000);

describe('langsmith (npm) feedback configs', () => {
  test('create, list, update, add and remove categories, delete', async () => {
    const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: jsWorkspace.apiKey });
    const prefix = `js-${randomUUID().slice(0, 8)}`;
    const score = await client.createFeedbackConfig({
      feedbackKey: `${prefix}-correctness`,
      feedbackConfig: { type: 'continuous', min: 0, max: 1 },
    });
    expect(score).toMatchObject({
      feedback_key: `${prefix}-correctness`,
      feedback_config: { type: 'continuous', min: 0, max: 1 },
      tenant_id: jsWorkspace.id,
      is_enforced: false,
      is_first: true,
      is_deleted: false,
    });
    const tags = await client.createFeedbackConfig({
      feedbackKey: `${prefix}-tone`,
      feedbackConfig: {
        type: 'categorical',
        categories: [
          { value: 0, label: 'rude' },
          { value: 1, label: 'polite' },
        ],
      },
      isLowerScoreBetter: false,
    });
    await expect(
      client.createFeedbackConfig({ feedbackKey: `${prefix}-tone`, feedbackConfig: { type: 'freeform' } }),
    ).rejects.toThrow(/400/);

    const keys = async (options: Parameters<Client['listFeedbackConfigs']>[0]) =>
      (await collect(client.listFeedbackConfigs(options))).map((c) => c.feedback_key);
    expect(await keys({ nameContains: prefix })).toEqual([`${prefix}-correctness`, `${prefix}-tone`]);
    expect(await keys({ feedbackKeys: [`${prefix}-tone`] })).toEqual([`${prefix}-tone`]);

    const updated = await client.updateFeedbackConfig(`${prefix}-correctness`, {
      feedbackConfig: { type: 'continuous', min: 0, max: 10 },
      isLowerScoreBetter: true,
    });
    expect(updated).toMatchObject({ id: score.id, feedback_config: { max: 10 }, is_lower_score_better: true });
    const added = await client.addFeedbackCategories(`${prefix}-tone`, [{ value: 2, label: 'warm' }]);
    expect(added.feedback_config.categories).toHaveLength(3);
    const removed = await client.removeFeedbackCategories(`${prefix}-tone`, [0], { configId: tags.id! });
    expect(removed.feedback_config.categories).toEqual([
      { value: 1, label: 'polite' },
      { value: 2, label: 'warm' },
    ]);

    await client.deleteFeedbackConfig(`${prefix}-correctness`);
    await client.deleteFeedbackConfig(undefined, { configId: tags.id! });
    expect(await keys({ nameContains: prefix })).toEqual([]);
    expect(await keys({ nameContains: prefix, includeAllConfigs: true })).toEqual([
      `${prefix}-correctness`,
      `${prefix}-tone`,
    ]);
  });
});

describe('langsmith (PyPI) feedback configs', () => {
  test('every call answered with a valid FeedbackConfigSchema, refusals as the client names them', async () => {
    const prefix = `py-${randomUUID().slice(0, 8)}`;
    const env = { LANGSMITH_ENDPOINT: `${tracingUrl()}/api/v1`, LANGSMITH_API_KEY: pyWorkspace.apiKey };
    const run = await runPythonScript<Record<string, any>>(pyenv, 'feedback_configs.py', [prefix], env);
    const r = run.result;
    expect(
      r.requests.filter((q: { status: number }) => q.status >= 300).map((q: { status: number }) => q.status),
    ).toEqual([400, 400]);
    expect(r.score).toMatchObject({
      type: 'FeedbackConfigSchema',
      feedback_key: `${prefix}-correctness`,
      is_lower_score_better: false,
      is_first: true,
    });
    expect(r.again.id).toBe(r.score.id);
    expect(r.different).toBe('LangSmithError');
    expect(r.tags).toMatchObject({ is_enforced: true, feedback_config: { type: 'categorical' } });
    expect(r.listed).toEqual([`${prefix}-correctness`, `${prefix}-tone`]);
    expect(r.listed_by_key).toEqual([`${prefix}-tone`]);
    expect(r.listed_enforced).toEqual([`${prefix}-tone`]);
    expect(r.updated).toMatchObject({ id: r.score.id, is_lower_score_better: true, feedback_config: { max: 10 } });
    expect(r.added.feedback_config.categories).toHaveLength(3);
    expect(r.removed.feedback_config.categories).toEqual([
      { value: 1, label: 'polite' },
      { value: 2, label: 'warm' },
    ]);
    expect(r.too_few).toBe('LangSmithError');
    expect(r.after).toEqual([]);
    expect(r.all_after).toEqual([
      [`${prefix}-correctness`, true],
      [`${prefix}-tone`, true],
    ]);
  });
});
