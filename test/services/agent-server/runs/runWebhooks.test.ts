// Run webhooks (runs/runWebhooks.ts): checked against the outbound host policy when a run is
// created (a 422 naming `webhook`), POSTed the run's LangGraph payload when it ends, retried while
// the receiver answers 5xx, never sent to a host the policy refuses, and not at all when turned off.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../platform/errors.ts';
import { createLogger } from '../../../../platform/logger.ts';
import { OutboundHostPolicy } from '../../../../platform/outboundHostPolicy.ts';
import type { RunOutcome } from '../../../../services/agent-server/runs/activeRun.ts';
import { RunWebhooks } from '../../../../services/agent-server/runs/runWebhooks.ts';
import type { RunRecord } from '../../../../services/agent-server/store/agentRecords.ts';

const logger = createLogger('test', 'silent');
const FAST = { initialDelayMs: 5, backoffCoefficient: 1, maxDelayMs: 5, maxAttempts: 4 };

const record: RunRecord = {
  run_id: '00000000-0000-7000-8000-000000000001',
  thread_id: '00000000-0000-4000-8000-000000000002',
  assistant_id: 'fe096781-5601-53d2-b2f6-0d3403f7e9ca',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:01.000Z',
  status: 'success',
  metadata: { tag: 'x' },
  kwargs: { input: { messages: [] } },
  multitask_strategy: 'reject',
};
const outcome: RunOutcome = { status: 'success', values: { messages: [{ type: 'ai', content: 'hi' }] } };

/** A receiver that answers each POST with the next status of `statuses` (the last one repeated). */
async function receiver(statuses: number[]) {
  const calls: { body: any; headers: IncomingMessage['headers'] }[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      calls.push({ body: JSON.parse(text), headers: req.headers });
      res.writeHead(statuses[Math.min(calls.length - 1, statuses.length - 1)]!).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  servers.push(server);
  return { url: `http://127.0.0.1:${port}/hook`, port, calls };
}
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const webhooks = (policy = new OutboundHostPolicy(), disabled = false) =>
  new RunWebhooks({ policy, logger, disabled, retryPolicy: FAST });

async function refusal(check: Promise<void>): Promise<string> {
  const err = await check.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe('INVALID_FIELD');
  return (err as AppError).message;
}

describe('run webhooks', () => {
  it('refuses, at run creation, URLs that are not http(s), carry credentials, or lead where the policy refuses', async () => {
    const hooks = webhooks();
    expect(await refusal(hooks.check('ftp://example.com/x'))).toMatch(/^body\/webhook: must be an absolute http/);
    expect(await refusal(hooks.check('/relative'))).toMatch(/^body\/webhook/);
    expect(await refusal(hooks.check('https://user:pw@example.com/x'))).toMatch(/without a user name or password/);
    for (const refused of ['http://127.0.0.1:9/x', 'http://10.1.2.3/x', 'http://[::1]/x', 'http://169.254.169.254/'])
      expect(await refusal(hooks.check(refused)), refused).toMatch(
        /^body\/webhook: connections to .* are not allowed .*AGENT_SERVER_WEBHOOK_ALLOWED_HOSTS/,
      );
    // a name is judged by where it leads
    expect(await refusal(hooks.check('http://localhost:8080/x'))).toMatch(/connections to localhost are not allowed/);
    await hooks.check('https://203.0.113.10/hook');
    await hooks.check(null);
    // allowed by configuration, or refused whatever it resolves to
    const allowing = webhooks(new OutboundHostPolicy({ allowed: '127.0.0.1', denied: '203.0.113.0/24' }));
    await allowing.check('http://127.0.0.1:9/x');
    expect(await refusal(allowing.check('https://203.0.113.10/hook'))).toMatch(/not allowed/);
    // turned off (http.disable_webhooks): nothing is checked
    await webhooks(new OutboundHostPolicy(), true).check('http://127.0.0.1/x');
  });

  it('POSTs the run, its status, values and times when it ends, retrying while the receiver answers 5xx', async () => {
    const hook = await receiver([503, 500, 200]);
    const hooks = webhooks(new OutboundHostPolicy({ allowed: `127.0.0.1:${hook.port}` }));
    await hooks.check(hook.url);
    const started = new Date(Date.now() - 1000);
    hooks.runEnded(record, hook.url, outcome, started);
    await hooks.settled();
    expect(hook.calls).toHaveLength(3);
    const { body, headers } = hook.calls.at(-1)!;
    expect(headers['content-type']).toBe('application/json');
    expect(body).toMatchObject({
      run_id: record.run_id,
      thread_id: record.thread_id,
      assistant_id: record.assistant_id,
      metadata: { tag: 'x' },
      kwargs: { input: { messages: [] } },
      status: 'success',
      values: outcome.values,
      run_started_at: started.toISOString(),
    });
    expect(Date.parse(body.run_ended_at)).toBeGreaterThanOrEqual(started.getTime());
    expect(Date.parse(body.webhook_sent_at)).toBeGreaterThanOrEqual(Date.parse(body.run_ended_at));
    expect(body.error).toBeUndefined();
  });

  it('sends a failed run’s error; gives up on a 4xx at once', async () => {
    const hook = await receiver([400]);
    const hooks = webhooks(new OutboundHostPolicy({ allowed: '127.0.0.1' }));
    hooks.runEnded({ ...record, status: 'error' }, hook.url, {
      status: 'error',
      values: null,
      error: { error: 'ValueError', message: 'no way' },
    });
    await hooks.settled();
    expect(hook.calls).toHaveLength(1);
    expect(hook.calls[0]!.body).toMatchObject({ status: 'error', error: 'no way', values: null });
  });

  it('never calls a host the policy refuses, by name or address, and nothing when turned off', async () => {
    const hook = await receiver([200]);
    // accepted when the run was created (say, the allowed list changed since): refused as it connects
    for (const url of [hook.url, `http://localhost:${hook.port}/hook`]) {
      const hooks = webhooks();
      hooks.runEnded(record, url, outcome);
      await hooks.settled();
    }
    const off = webhooks(new OutboundHostPolicy({ allowed: '127.0.0.1' }), true);
    off.runEnded(record, hook.url, outcome);
    await off.settled();
    expect(hook.calls).toHaveLength(0);
  });
});
