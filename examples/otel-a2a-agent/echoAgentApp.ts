// The example agent's HTTP surface, built with @a2a-js/sdk's Express integration:
//   GET  /.well-known/agent-card.json   the agent card (A2A 1.0, or 0.3 for 0.3 clients)
//   POST /a2a                           JSON-RPC: message/send, message/stream, tasks/get, … (1.0 and 0.3 names)
// A JSON parser and the request-span middleware run before the SDK's JSON-RPC handler, which
// then finds the body parsed (body-parser skips a body already read).
import express, { type ErrorRequestHandler, type Express } from 'express';
import type { Tracer } from '@opentelemetry/api';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { a2aRequestSpans } from './a2aRequestSpan.ts';
import { ECHO_AGENT_NAME, EchoAgentExecutor, echoAgentCard, JSON_RPC_PATH } from './echoAgent.ts';

/** A body that is not JSON gets the JSON-RPC parse error the SDK gives (its own handler never sees errors of ours). */
const invalidJsonAsParseError: ErrorRequestHandler = (err, _req, res, next) => {
  if ((err as { type?: unknown }).type !== 'entity.parse.failed') return next(err);
  res.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Invalid JSON payload.' } });
};

export function buildEchoAgentApp(options: { baseUrl: string; tracer: Tracer }): Express {
  const requestHandler = new DefaultRequestHandler(
    echoAgentCard(options.baseUrl),
    new InMemoryTaskStore(),
    new EchoAgentExecutor(),
  );
  // v0.3 compatibility: the spec's wire (message/send, top-level metadata) is A2A 0.3.
  const legacyCompat = { enabled: true };
  const app = express();
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
  app.post(JSON_RPC_PATH, express.json(), a2aRequestSpans(options.tracer, ECHO_AGENT_NAME), invalidJsonAsParseError);
  app.use(JSON_RPC_PATH, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  app.get('/ok', (_req, res) => {
    res.json({ ok: true });
  });
  return app;
}
