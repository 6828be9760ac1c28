// `webhook` of a run: when the run ends, the server POSTs the run to that URL as LangGraph's server
// does (the run record with its final `status`, `values` and, for a failed run, `error`, plus
// `run_started_at`, `run_ended_at` and `webhook_sent_at`), retried with WEBHOOK_RETRY while the
// receiver is away or answers 5xx/429. It never holds up the run: the run has ended (and its
// waiters been answered) before the call starts. Only hosts the outbound host policy allows are
// called (platform/outboundHostPolicy.ts, as bulk-export destinations: no loopback, private or
// link-local addresses unless AGENT_SERVER_WEBHOOK_ALLOWED_HOSTS lets them), checked when the run
// is created (a 422 naming `webhook`) and again as each connection is made (a name that now
// resolves somewhere refused is refused, and logged). `http.disable_webhooks` in the config file
// turns them off: the field is accepted and nothing is called.
import { isIP } from 'node:net';
import { Agent, EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import type { Config } from '../../../platform/config.ts';
import { errors } from '../../../platform/errors.ts';
import type { Logger } from '../../../platform/logger.ts';
import { HostDeniedError, OutboundHostPolicy } from '../../../platform/outboundHostPolicy.ts';
import { retry, type RetryPolicy } from '../../../platform/retry.ts';
import type { RunRecord } from '../store/agentRecords.ts';
import { toWireJson } from '../wireJson.ts';
import type { RunOutcome } from './activeRun.ts';

/** Six attempts over about two minutes: a receiver restarting, or briefly overloaded, still gets the call. */
export const WEBHOOK_RETRY: RetryPolicy = {
  initialDelayMs: 1000,
  backoffCoefficient: 3,
  maxDelayMs: 120_000,
  maxAttempts: 6,
  jitter: 0.2,
};
/** One attempt: connecting, sending, and the receiver's answer. */
const ATTEMPT_TIMEOUT_MS = 15_000;
const MAX_URL_LENGTH = 2048;

/** The hosts webhooks may reach: the default ranges of OutboundHostPolicy, with the agent server's own lists. */
export function webhookHostPolicy(
  config: Pick<Config, 'AGENT_SERVER_WEBHOOK_ALLOWED_HOSTS' | 'AGENT_SERVER_WEBHOOK_DENIED_HOSTS'>,
): OutboundHostPolicy {
  return new OutboundHostPolicy({
    allowed: config.AGENT_SERVER_WEBHOOK_ALLOWED_HOSTS,
    denied: config.AGENT_SERVER_WEBHOOK_DENIED_HOSTS,
  });
}

/** What a webhook receiver gets (LangGraph's payload). */
export function webhookPayload(
  record: RunRecord,
  outcome: RunOutcome,
  startedAt: Date | undefined,
  endedAt: Date,
): Record<string, unknown> {
  return {
    ...record,
    status: outcome.status,
    run_started_at: (startedAt ?? endedAt).toISOString(),
    run_ended_at: endedAt.toISOString(),
    webhook_sent_at: new Date().toISOString(),
    values: outcome.values,
    ...(outcome.error ? { error: outcome.error.message } : {}),
  };
}

/** A receiver's answer worth another attempt (or not): 5xx, 408 and 429 are. */
class WebhookAnswer extends Error {
  readonly retryable: boolean;
  constructor(status: number) {
    super(`the receiver answered ${status}`);
    this.retryable = status >= 500 || status === 408 || status === 429;
  }
}

const portOf = (url: URL) => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

export interface RunWebhooksOptions {
  policy: OutboundHostPolicy;
  logger: Logger;
  /** http.disable_webhooks: nothing is checked or called. */
  disabled?: boolean;
  retryPolicy?: RetryPolicy;
}

export class RunWebhooks {
  readonly #policy: OutboundHostPolicy;
  readonly #logger: Logger;
  readonly #disabled: boolean;
  readonly #retryPolicy: RetryPolicy;
  /** Calls under way (or waiting to retry): stopped when the server stops. */
  readonly #stopping = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: RunWebhooksOptions) {
    this.#policy = options.policy;
    this.#logger = options.logger;
    this.#disabled = options.disabled ?? false;
    this.#retryPolicy = options.retryPolicy ?? WEBHOOK_RETRY;
  }

  /**
   * Refuses (422 naming `webhook`) a URL that is not an absolute http(s) URL without credentials,
   * or whose host the policy refuses. A name that does not resolve now is let through (it may
   * later); the call will say why it failed, in the log.
   */
  async check(webhook: string | null | undefined): Promise<void> {
    if (this.#disabled || webhook == null) return;
    let url: URL | undefined;
    try {
      url = new URL(webhook);
    } catch {
      url = undefined;
    }
    if (
      !url ||
      webhook.length > MAX_URL_LENGTH ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      url.username ||
      url.password
    )
      throw errors.invalidField(
        `body/webhook: must be an absolute http:// or https:// URL of at most ${MAX_URL_LENGTH} characters, without a user name or password`,
      );
    try {
      await this.#policy.check(url.hostname, portOf(url));
    } catch (err) {
      if (!(err instanceof HostDeniedError)) return;
      this.#logger.info({ webhook: url.origin, reason: err.reason }, 'a run’s webhook was refused by the host policy');
      throw errors.invalidField(
        `body/webhook: ${err.message} (the agent server's outbound host policy: AGENT_SERVER_WEBHOOK_ALLOWED_HOSTS, AGENT_SERVER_WEBHOOK_DENIED_HOSTS)`,
      );
    }
  }

  /** Calls the run's webhook, if it has one, in the background; failures are logged. */
  runEnded(record: RunRecord, webhook: string | null | undefined, outcome: RunOutcome, startedAt?: Date): void {
    if (this.#disabled || webhook == null || this.#stopping.signal.aborted) return;
    const payload = webhookPayload(record, outcome, startedAt, new Date());
    const call = this.#deliver(webhook, payload, record.run_id).finally(() => this.#inFlight.delete(call));
    this.#inFlight.add(call);
  }

  /** Resolves once the calls under way have ended (for tests and a clean stop). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  /** Stops retrying; calls under way are abandoned. */
  async close(): Promise<void> {
    this.#stopping.abort();
    await this.settled();
  }

  async #deliver(webhook: string, payload: Record<string, unknown>, runId: string): Promise<void> {
    const body = toWireJson(payload);
    const url = new URL(webhook);
    const log = { run_id: runId, webhook: url.origin };
    try {
      const attempts = await retry(
        this.#retryPolicy,
        async (n) => {
          await this.#post(url, body);
          return n;
        },
        { what: `call the webhook of run ${runId}`, logger: this.#logger, signal: this.#stopping.signal },
      );
      this.#logger.info({ ...log, attempts }, 'webhook called');
    } catch (err) {
      const reason = err instanceof HostDeniedError ? err.reason : (err as Error).message;
      this.#logger.warn({ ...log, err: reason }, 'a run’s webhook could not be called; giving up');
    }
  }

  async #post(url: URL, body: string): Promise<void> {
    const port = portOf(url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // Behind a proxy (a sandboxed deployment's egress proxy), the proxy connects: the host is
    // checked here first, and the proxy enforces its own list. Else each connection's addresses
    // are checked as it is made (an address in the URL here: sockets to one skip the lookup).
    const proxied = Boolean(process.env.HTTPS_PROXY || process.env.HTTP_PROXY);
    let dispatcher: Dispatcher | undefined;
    try {
      const literal = isIP(host) ? this.#policy.refusal(host, port, host) : null;
      if (literal) throw new HostDeniedError(host, literal);
      if (proxied) await this.#policy.check(host, port);
      dispatcher = proxied ? new EnvHttpProxyAgent() : new Agent({ connect: { lookup: this.#policy.lookupFor(port) } });
      const answer = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        dispatcher,
        signal: AbortSignal.any([AbortSignal.timeout(ATTEMPT_TIMEOUT_MS), this.#stopping.signal]),
      });
      await answer.body.dump();
      if (answer.statusCode < 200 || answer.statusCode >= 300) throw new WebhookAnswer(answer.statusCode);
    } catch (err) {
      // a refused host stays refused
      if (err instanceof HostDeniedError || (err as { cause?: unknown }).cause instanceof HostDeniedError)
        throw Object.assign(err as Error, { retryable: false });
      throw err;
    } finally {
      await dispatcher?.close().catch(() => undefined);
    }
  }
}
