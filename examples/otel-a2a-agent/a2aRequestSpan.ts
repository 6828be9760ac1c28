// One span per A2A message request (message/send, message/stream, and their A2A 1.0 names
// SendMessage, SendStreamingMessage): the trace of one turn of this agent.
//
// The conversation's thread comes from the JSON-RPC request's top-level `metadata.thread_id`
// (outside `params`). The A2A SDK neither validates nor passes that member on to the agent, so
// this middleware reads it from the parsed body before the SDK's handler runs and sets it as
// the span attribute `langsmith.metadata.thread_id`, which the tracing API files the run's
// thread under. The span is the active span while the SDK handles the request, so the agent's
// executor adds the turn's input and answer to it (recordTurn).
import type { RequestHandler } from 'express';
import { context, createContextKey, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';

export const THREAD_ID_ATTRIBUTE = 'langsmith.metadata.thread_id';
const MESSAGE_METHODS = new Set(['message/send', 'message/stream', 'SendMessage', 'SendStreamingMessage']);
const INVALID_PARAMS = -32602;
/** Whether the client named the thread: when it did not, the A2A contextId is the thread (recordTurn). */
const CLIENT_THREAD_ID = createContextKey('a2a request metadata.thread_id');

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The request's top-level metadata.thread_id: a string, absent (null), or a message saying what is wrong with it. */
export function requestThreadId(body: Json): { threadId: string | null } | { problem: string } {
  const metadata = body.metadata;
  if (metadata === undefined || metadata === null) return { threadId: null };
  if (!isObject(metadata)) return { problem: 'metadata must be an object' };
  const threadId = metadata.thread_id;
  if (threadId === undefined || threadId === null) return { threadId: null };
  if (typeof threadId !== 'string' || threadId === '')
    return { problem: 'metadata.thread_id must be a non-empty string' };
  return { threadId };
}

/** Express middleware for the JSON-RPC route; runs after a JSON body parser and before the SDK's handler. */
export function a2aRequestSpans(tracer: Tracer, traceName: string): RequestHandler {
  return (req, res, next) => {
    const body: unknown = req.body;
    if (!isObject(body) || typeof body.method !== 'string' || !MESSAGE_METHODS.has(body.method)) return next();
    const thread = requestThreadId(body);
    if ('problem' in thread) {
      // JSON-RPC errors travel with HTTP 200, as the SDK answers its own.
      res.json({
        jsonrpc: '2.0',
        id: body.id ?? null,
        error: { code: INVALID_PARAMS, message: `Invalid params: ${thread.problem}` },
      });
      return;
    }
    // A root span whatever is active: each turn is one trace of the thread.
    const span = tracer.startSpan(`a2a ${body.method}`, {
      root: true,
      kind: SpanKind.SERVER,
      attributes: {
        'langsmith.trace.name': traceName,
        'langsmith.span.kind': 'chain',
        'rpc.system': 'jsonrpc',
        'rpc.method': body.method,
        ...(thread.threadId === null ? {} : { [THREAD_ID_ATTRIBUTE]: thread.threadId }),
      },
    });
    res.once('close', () => {
      if (!res.writableFinished)
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the connection closed before the answer was sent' });
      span.end();
    });
    let active = trace.setSpan(context.active(), span);
    if (thread.threadId !== null) active = active.setValue(CLIENT_THREAD_ID, thread.threadId);
    context.with(active, next);
  };
}

export interface Turn {
  contextId: string;
  taskId: string;
  input: string;
  output: string;
}

/** Called by the agent's executor: the turn's input, answer and A2A ids on the request's span. */
export function recordTurn(turn: Turn): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  span.setAttributes({
    'input.value': turn.input,
    'output.value': turn.output,
    'langsmith.metadata.a2a_context_id': turn.contextId,
    'langsmith.metadata.a2a_task_id': turn.taskId,
  });
  // Without a thread from the client, the conversation with this agent alone is the thread, as on the agent server.
  if (context.active().getValue(CLIENT_THREAD_ID) === undefined) span.setAttribute(THREAD_ID_ATTRIBUTE, turn.contextId);
}
