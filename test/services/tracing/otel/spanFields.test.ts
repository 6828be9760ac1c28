import { describe, expect, test } from 'vitest';
import { spanFields } from '../../../../services/tracing/otel/spanFields.ts';
import type { OtelSpan } from '../../../../services/tracing/otel/otlpSpans.ts';

const TRACE = '5b8efff798038103d269b633813fc60c';
const start = 1747684501221924;

function span(over: Partial<OtelSpan> = {}): OtelSpan {
  return {
    traceId: TRACE,
    spanId: 'eee19b7ec3c1b174',
    parentSpanId: '0102030405060708',
    name: 'my span',
    kind: 1,
    startMicros: start,
    endMicros: start + 1500,
    attributes: {},
    events: [],
    status: { code: 0, message: '' },
    resource: { 'service.name': 'svc', 'host.name': 'h' },
    scope: { name: 'scope', version: '1' },
    ...over,
  };
}

describe('spanFields', () => {
  test('a plain span is a complete chain run; what is not mapped stays in extra.otel', () => {
    const f = spanFields(span({ attributes: { 'http.method': 'GET' } }), null) as any;
    expect(f).toMatchObject({
      name: 'my span',
      run_type: 'chain',
      start_time: '2025-05-19T19:55:01.221924Z',
      end_time: '2025-05-19T19:55:01.223424Z',
      inputs: {},
      outputs: null,
      error: null,
      tags: null,
      events: null,
    });
    expect(f.extra).toEqual({
      metadata: { 'service.name': 'svc' },
      otel: {
        trace_id: TRACE,
        span_id: 'eee19b7ec3c1b174',
        parent_span_id: '0102030405060708',
        span_kind: 'internal',
        scope: { name: 'scope', version: '1' },
        resource: { 'service.name': 'svc', 'host.name': 'h' },
        attributes: { 'http.method': 'GET' },
      },
    });
    expect(f.session_name).toBeUndefined();
  });

  test('langsmith.* attributes', () => {
    const f = spanFields(
      span({
        attributes: {
          'langsmith.trace.name': 'Agent',
          'langsmith.span.kind': 'LLM',
          'langsmith.span.tags': 'a, b,,c',
          'langsmith.metadata.thread_id': 't-1',
          'langsmith.metadata.user': 'u',
          'langsmith.trace.session_name': 'proj',
          'langsmith.reference_example_id': '018f0000-0000-7000-8000-000000000001',
          'langsmith.span.id': 'ignored here',
          'langsmith.usage_metadata': '{"input_tokens":3,"output_tokens":4,"total_tokens":7}',
        },
      }),
      'header-project',
    ) as any;
    expect(f).toMatchObject({
      name: 'Agent',
      run_type: 'llm',
      tags: ['a', 'b', 'c'],
      session_name: 'proj',
      reference_example_id: '018f0000-0000-7000-8000-000000000001',
    });
    expect(f.extra.metadata).toEqual({
      'service.name': 'svc',
      thread_id: 't-1',
      user: 'u',
      usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
    });
    expect(f.extra.otel.attributes).toEqual({});
  });

  test('project: session id, else session name, else the Langsmith-Project header, else none (the default project)', () => {
    const id = '018f0000-0000-7000-8000-000000000009';
    expect(
      spanFields(span({ attributes: { 'langsmith.trace.session_id': id, 'langsmith.trace.session_name': 'n' } }), 'h'),
    ).toMatchObject({ session_id: id });
    expect(spanFields(span({ attributes: { 'langsmith.trace.session_name': 'n' } }), 'h')).toMatchObject({
      session_name: 'n',
    });
    expect(spanFields(span(), 'h')).toMatchObject({ session_name: 'h' });
  });

  test('GenAI conventions: run type, messages, model, provider, invocation params and usage', () => {
    const f = spanFields(
      span({
        attributes: {
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.request.temperature': 0.2,
          'gen_ai.prompt.0.role': 'system',
          'gen_ai.prompt.0.content': 'be brief',
          'gen_ai.prompt.1.role': 'user',
          'gen_ai.prompt.1.content': 'hi',
          'gen_ai.completion.0.role': 'assistant',
          'gen_ai.completion.0.content': 'hello',
          'gen_ai.usage.prompt_tokens': 10,
          'gen_ai.usage.completion_tokens': 2,
        },
      }),
      null,
    ) as any;
    expect(f.run_type).toBe('llm');
    expect(f.inputs).toEqual({
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(f.outputs).toEqual({ messages: [{ role: 'assistant', content: 'hello' }] });
    expect(f.extra.metadata).toMatchObject({
      ls_provider: 'openai',
      ls_model_name: 'gpt-4o-mini',
      usage_metadata: { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
    });
    expect(f.extra.invocation_params).toEqual({ model: 'gpt-4o-mini', temperature: 0.2 });
    expect(f.extra.otel.attributes).toEqual({});
  });

  test('run type from gen_ai.operation.name, OpenInference and tool names; chain otherwise', () => {
    const typeOf = (attributes: OtelSpan['attributes']) => (spanFields(span({ attributes }), null) as any).run_type;
    expect(typeOf({ 'gen_ai.operation.name': 'chat' })).toBe('llm');
    expect(typeOf({ 'gen_ai.operation.name': 'embeddings' })).toBe('embedding');
    expect(typeOf({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' })).toBe('tool');
    expect(typeOf({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a' })).toBe('chain');
    expect(typeOf({ 'openinference.span.kind': 'RETRIEVER' })).toBe('retriever');
    // a kind named like an object's own property is no kind: chain, a string
    expect(typeOf({ 'openinference.span.kind': 'constructor' })).toBe('chain');
    expect(typeOf({ 'openinference.span.kind': '__proto__' })).toBe('chain');
    expect(typeOf({ 'gen_ai.tool.name': 'search' })).toBe('tool');
    expect(typeOf({ 'langsmith.span.kind': 'nonsense', 'gen_ai.request.model': 'm' })).toBe('llm');
    expect(typeOf({ 'langsmith.span.kind': 'retriever', 'gen_ai.request.model': 'm' })).toBe('retriever');
  });

  test('inputs and outputs from gen_ai.prompt / input.value: JSON objects as they are, other values wrapped', () => {
    const io = (attributes: OtelSpan['attributes']) => {
      const f = spanFields(span({ attributes }), null) as any;
      return [f.inputs, f.outputs];
    };
    expect(io({ 'gen_ai.prompt': '{"question":"q"}', 'gen_ai.completion': '{"answer":"a"}' })).toEqual([
      { question: 'q' },
      { answer: 'a' },
    ]);
    expect(io({ 'input.value': 'plain text', 'output.value': '[1,2]' })).toEqual([
      { input: 'plain text' },
      { output: [1, 2] },
    ]);
    expect(io({ 'gen_ai.input.messages': '[{"role":"user","content":"x"}]' })).toEqual([
      { messages: [{ role: 'user', content: 'x' }] },
      null,
    ]);
  });

  test('status ERROR and exception events become the error; events are kept as run events', () => {
    const exception = {
      name: 'exception',
      timeMicros: start + 10,
      attributes: { 'exception.type': 'ValueError', 'exception.message': 'bad', 'exception.stacktrace': 'at x' },
    };
    const withMessage = spanFields(
      span({ status: { code: 2, message: 'it failed' }, events: [exception] }),
      null,
    ) as any;
    expect(withMessage.error).toBe('it failed');
    expect(withMessage.events).toEqual([
      { name: 'exception', time: '2025-05-19T19:55:01.221934Z', kwargs: exception.attributes },
    ]);
    expect((spanFields(span({ status: { code: 2, message: '' }, events: [exception] }), null) as any).error).toBe(
      'ValueError: bad\n\nat x',
    );
    expect((spanFields(span({ status: { code: 2, message: '' } }), null) as any).error).toBe('error');
    expect((spanFields(span({ status: { code: 1, message: '' } }), null) as any).error).toBeNull();
  });
});
