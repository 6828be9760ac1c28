// Presigned feedback tokens, as the official langsmith client makes them
// (createPresignedFeedbackToken → POST /feedback/tokens): the token's URL records feedback of its
// key on its run with no API key (POST with a body, or GET with query parameters), in the token's
// workspace, where listFeedback finds it; a token with a feedback id replaces its item on each
// use; an expired or unknown token is a 404, a bad request a 422 naming the field.
import { randomUUID } from 'node:crypto';
import { Client } from 'langsmith';
import { beforeAll, describe, expect, test } from 'vitest';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../../support/tracingClient.ts';
import { waitFor } from '../../../support/serviceProcess.ts';

let ws: Workspace;
let other: Workspace;
let client: Client;
beforeAll(async () => {
  [ws, other] = (await createWorkspaces(2)) as [Workspace, Workspace];
  client = new Client({ apiUrl: tracingUrl(), apiKey: ws.apiKey, autoBatchTracing: false });
});

const show = (res: { status: number; body: unknown }) => `${res.status} ${JSON.stringify(res.body).slice(0, 600)}`;

async function feedbackOn(c: Client, runId: string): Promise<any[]> {
  const items: any[] = [];
  for await (const f of c.listFeedback({ runIds: [runId] })) items.push(f);
  return items;
}

/** Uses a token's URL as a browser would: no API key. */
const useToken = (url: string, init: { method?: string; json?: unknown } = {}) =>
  fetch(url, {
    method: init.method ?? 'POST',
    ...(init.json === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.json) }),
  });

describe('presigned feedback tokens', () => {
  test('the client’s token URL records feedback on the run with no API key, in the token’s workspace', async () => {
    const runId = randomUUID(); // feedback may come before its run, as with POST /feedback
    const before = Date.now();
    const token = await client.createPresignedFeedbackToken(runId, 'thumbs');
    expect(token.url).toBe(`${tracingUrl()}/feedback/tokens/${token.id}`);
    const expiresIn = Date.parse(token.expires_at) - before;
    expect(expiresIn).toBeGreaterThan(2.9 * 3600_000);
    expect(expiresIn).toBeLessThanOrEqual(3 * 3600_000 + 60_000);

    const posted = await useToken(token.url, { json: { score: 1, comment: 'great', metadata: { page: 'chat' } } });
    expect(posted.status).toBe(200);
    expect(await posted.json()).toMatchObject({ run_id: runId, key: 'thumbs', score: 1, comment: 'great' });
    const byGet = await fetch(`${token.url}?score=0&comment=${encodeURIComponent('not so')}&value=meh`);
    expect(byGet.status).toBe(200);

    const items = await waitFor('both items listed', async () => {
      const found = await feedbackOn(client, runId);
      return found.length === 2 ? found : null;
    });
    expect(items.map((f) => [f.key, f.score, f.comment]).sort()).toEqual([
      ['thumbs', 0, 'not so'],
      ['thumbs', 1, 'great'],
    ]);
    expect(items.find((f) => f.score === 1).feedback_source).toMatchObject({
      type: 'app',
      metadata: { page: 'chat', feedback_token_id: token.id },
    });
    // the token's workspace's: another workspace sees none of it
    const theirs = new Client({ apiUrl: tracingUrl(), apiKey: other.apiKey, autoBatchTracing: false });
    expect(await feedbackOn(theirs, runId)).toEqual([]);
  });

  test('a token with a feedback id (the Python client sends one) replaces its item on each use; a list makes a list', async () => {
    const runId = randomUUID();
    const feedbackId = randomUUID();
    const made = await api('/api/v1/feedback/tokens', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: [
        { run_id: runId, feedback_key: 'vote', id: feedbackId, expires_in: { days: 0, hours: 1, minutes: 0 } },
        { run_id: runId, feedback_key: 'note', feedback_config: { type: 'freeform' } },
      ],
    });
    expect(made.status, show(made)).toBe(200);
    expect(made.body).toHaveLength(2);
    const [vote, note] = made.body as { id: string; url: string }[];
    expect(vote!.url).toMatch(/\/api\/v1\/feedback\/tokens\//); // where the caller came
    for (const score of [1, 0]) expect((await useToken(vote!.url, { json: { score } })).status).toBe(200);
    expect((await useToken(note!.url, { json: { value: 'hello' } })).status).toBe(200);
    const items = await waitFor('the vote replaced, the note added', async () => {
      const found = await feedbackOn(client, runId);
      return found.length === 2 && found.some((f) => f.key === 'vote' && f.score === 0) ? found : null;
    });
    expect(items.find((f) => f.key === 'vote')).toMatchObject({ id: feedbackId, score: 0 });
    expect(items.find((f) => f.key === 'note')).toMatchObject({
      value: 'hello',
      feedback_config: { type: 'freeform' },
    });
  });

  test('an expired or unknown token is a 404; creating one needs a key; bad input is a 422 naming the field', async () => {
    const runId = randomUUID();
    const shortLived = await api('/feedback/tokens', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { run_id: runId, feedback_key: 'soon', expires_at: new Date(Date.now() + 1500).toISOString() },
    });
    expect(shortLived.status, show(shortLived)).toBe(200);
    // used until it expires, refused after
    await waitFor(
      'the token to expire',
      async () => (await useToken(shortLived.body.url, { json: { score: 1 } })).status === 404,
      30_000,
      250,
    );
    // a token made expired (a time past) records nothing
    const expired = await api('/feedback/tokens', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { run_id: runId, feedback_key: 'late', expires_at: '2001-01-01T00:00:00Z' },
    });
    expect(expired.status, show(expired)).toBe(200);
    expect((await useToken(expired.body.url, { json: { score: 1 } })).status).toBe(404);
    const unknown = await useToken(`${tracingUrl()}/feedback/tokens/${randomUUID()}`, { json: { score: 1 } });
    expect(unknown.status).toBe(404);
    expect((await useToken(`${tracingUrl()}/feedback/tokens/not-a-token`, { json: {} })).status).toBe(422);

    const noKey = await fetch(`${tracingUrl()}/feedback/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ run_id: runId, feedback_key: 'x' }),
    });
    expect(noKey.status).toBe(401);
    for (const [json, field] of [
      [{ run_id: 'nope', feedback_key: 'x' }, /run_id/],
      [{ run_id: runId }, /feedback_key/],
      [{ run_id: runId, feedback_key: 'x', expires_at: 'tomorrow' }, /expires_at/],
      [{ run_id: runId, feedback_key: 'x', expires_in: { days: -1 } }, /expires_in\/days must be >= 0/],
    ] as const) {
      const res = await api('/feedback/tokens', { method: 'POST', apiKey: ws.apiKey, json });
      expect(res.status, show(res)).toBe(422);
      expect(JSON.stringify(res.body), show(res)).toMatch(field);
    }
    const valid = await client.createPresignedFeedbackToken(runId, 'ok');
    const badScore = await useToken(valid.url, { json: { score: 'high' } });
    expect(badScore.status).toBe(422);
  });
});
