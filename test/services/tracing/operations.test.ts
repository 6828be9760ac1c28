// Health, readiness, Prometheus metrics and the OpenAPI document of the tracing API.
import { expect, test } from 'vitest';
import { inject } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { api, tracingUrl } from '../../support/tracingClient.ts';

test('GET /ok and a readiness check that reflects Kafka', async () => {
  expect((await api('/ok')).body).toEqual({ ok: true });
  expect((await api('/ready')).status).toBe(200);
});

test('/metrics has request latencies, events appended and projector lag', async () => {
  await api('/runs', {
    method: 'POST',
    apiKey: inject('bootstrapApiKey'),
    json: { id: uuidv7(), name: 'm', run_type: 'chain' },
  });
  await new Promise((r) => setTimeout(r, 5500)); // the lag gauge is refreshed every 5 s
  const text = (await api('/metrics')).body as string;
  expect(text).toMatch(/http_request_duration_seconds_bucket\{.*route="\/runs".*\}/);
  expect(text).toMatch(/events_appended_total\{topic="tracing.runs",event="RunOpsAppended"\} \d+/);
  expect(text).toMatch(/projector_lag_messages\{projector="runs",partition="0"\} \d+/);
});

test('an OpenAPI document generated from the route schemas, browsable at /docs', async () => {
  const doc = (await api('/docs/json')).body;
  expect(doc.openapi).toMatch(/^3\./);
  for (const path of ['/runs', '/runs/multipart', '/runs/batch', '/runs/{run_id}', '/info', '/api/v1/runs/multipart'])
    expect(Object.keys(doc.paths)).toContain(path);
  const page = await fetch(`${tracingUrl()}/docs/`);
  expect(page.status).toBe(200);
  expect(await page.text()).toMatch(/swagger/i);
});
