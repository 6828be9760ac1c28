// The agent card, without a server: its fields for v0.3 and v1.0 clients, and the public base URL
// behind a proxy.
import { describe, expect, it } from 'vitest';
import { agentCard } from '../../../services/agent-server/a2a/agentCard.ts';
import { publicBaseUrl } from '../../../platform/http/publicUrl.ts';
import type { RegisteredGraph } from '../../../services/agent-server/graphRegistry.ts';

const registered = (name: string, stateKeys: string[], description: string | null = null) =>
  ({
    assistant: { assistant_id: 'fe096781-5601-53d2-b2f6-0d3403f7e9ca', graph_id: name, name, description },
    stateKeys,
    graph: {},
  }) as unknown as RegisteredGraph;

describe('agentCard', () => {
  const card = agentCard(
    registered('agent', ['user_id', 'messages'], 'A chat agent'),
    'https://agents.example.com',
    '1.2.3',
  );
  const url = 'https://agents.example.com/a2a/fe096781-5601-53d2-b2f6-0d3403f7e9ca';

  it('names the assistant and the JSON-RPC endpoint for v0.3 clients', () => {
    expect(card).toMatchObject({
      name: 'agent',
      description: 'A chat agent',
      url,
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3.0',
      version: '1.2.3',
    });
  });

  it('lists the endpoint for v1.0 clients, once per protocol version', () => {
    expect(card.supportedInterfaces).toEqual([
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
  });

  it('says what it can do: streaming, modes, one skill with the input schema', () => {
    expect(card.capabilities).toEqual({ streaming: true, pushNotifications: false, stateTransitionHistory: false });
    expect(card.defaultInputModes).toEqual(['application/json', 'text/plain']);
    expect(card.defaultOutputModes).toEqual(['application/json', 'text/plain']);
    expect(card.skills).toEqual([
      {
        id: 'fe096781-5601-53d2-b2f6-0d3403f7e9ca-main',
        name: 'agent Capabilities',
        description: 'A chat agent',
        tags: ['assistant', 'langgraph'],
        examples: [],
        inputModes: ['application/json', 'text/plain'],
        outputModes: ['application/json', 'text/plain'],
        metadata: { inputSchema: { required: [], properties: { messages: {}, user_id: {} }, supportsA2A: true } },
      },
    ]);
  });

  it('describes an assistant without a description by its name, and one without messages as not taking text', () => {
    const counter = agentCard(registered('counter', ['count']), 'http://h', '1');
    expect(counter.description).toBe('counter assistant');
    expect(
      (counter.skills as { metadata: { inputSchema: { supportsA2A: boolean } } }[])[0]!.metadata.inputSchema
        .supportsA2A,
    ).toBe(false);
  });
});

describe('publicBaseUrl', () => {
  const request = (headers: Record<string, string | string[]>, protocol = 'http') => ({ headers, protocol });

  it('is where the request came to', () => {
    expect(publicBaseUrl(request({ host: '127.0.0.1:2024' }))).toBe('http://127.0.0.1:2024');
  });

  it('honours the proxy’s X-Forwarded-Proto and X-Forwarded-Host (first hop)', () => {
    expect(
      publicBaseUrl(
        request({ host: 'internal:2024', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'agents.example.com' }),
      ),
    ).toBe('https://agents.example.com');
    expect(
      publicBaseUrl(
        request({
          host: 'internal:2024',
          'x-forwarded-proto': 'https, http',
          'x-forwarded-host': 'a.example.com:8443, b',
        }),
      ),
    ).toBe('https://a.example.com:8443');
  });

  it('ignores forwarded values that are not a scheme or a host', () => {
    expect(
      publicBaseUrl(
        request({ host: 'internal:2024', 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.com/path' }),
      ),
    ).toBe('http://internal:2024');
  });

  it('is USER_API_URL when that is set', () => {
    expect(
      publicBaseUrl(request({ host: 'internal:2024', 'x-forwarded-host': 'x' }), 'https://public.example.com/agents/'),
    ).toBe('https://public.example.com/agents');
  });
});
