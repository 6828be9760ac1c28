// The A2A agent card of an assistant. One card serves clients of both protocol versions:
// v1.0 clients pick an entry of `supportedInterfaces` (they prefer protocolVersion "1.0"), v0.3
// clients read the top-level `url`, `preferredTransport` and `protocolVersion`. The endpoint
// answers both: the method names a client calls decide the shapes it gets back (a2aMethods.ts).
import type { IncomingHttpHeaders } from 'node:http';
import type { RegisteredGraph } from '../graphRegistry.ts';

/** The v0.3 protocol version the card's top-level fields describe. */
export const A2A_V03_PROTOCOL_VERSION = '0.3.0';
const MODES = ['application/json', 'text/plain'];

const first = (value: string | string[] | undefined): string | undefined => {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.split(',')[0]?.trim() || undefined;
};

/**
 * The server's public base URL: USER_API_URL when set, else what the client used, as a proxy
 * in front reports it (`X-Forwarded-Proto`, `X-Forwarded-Host`) or as the request came.
 */
export function publicBaseUrl(request: { headers: IncomingHttpHeaders; protocol: string }, userApiUrl?: string): string {
  if (userApiUrl) return userApiUrl.replace(/\/+$/, '');
  const forwardedProto = first(request.headers['x-forwarded-proto'])?.toLowerCase();
  const proto = forwardedProto === 'http' || forwardedProto === 'https' ? forwardedProto : request.protocol;
  const forwardedHost = first(request.headers['x-forwarded-host']);
  const host = forwardedHost && /^[\w.-]+(:\d+)?$|^\[[\da-fA-F:.]+\](:\d+)?$/.test(forwardedHost) ? forwardedHost : (request.headers.host ?? 'localhost');
  return `${proto}://${host}`;
}

/** The JSON-RPC endpoint of an assistant. */
export function a2aEndpointUrl(baseUrl: string, assistantId: string): string {
  return `${baseUrl}/a2a/${assistantId}`;
}

export function agentCard(registered: RegisteredGraph, baseUrl: string, serverVersion: string): Record<string, unknown> {
  const { assistant, stateKeys } = registered;
  const url = a2aEndpointUrl(baseUrl, assistant.assistant_id);
  const description = assistant.description ?? `${assistant.name} assistant`;
  return {
    protocolVersion: A2A_V03_PROTOCOL_VERSION,
    name: assistant.name,
    description,
    url,
    preferredTransport: 'JSONRPC',
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    version: serverVersion,
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: [
      {
        id: `${assistant.assistant_id}-main`,
        name: `${assistant.name} Capabilities`,
        description,
        tags: ['assistant', 'langgraph'],
        examples: [],
        inputModes: MODES,
        outputModes: MODES,
        metadata: {
          inputSchema: {
            required: [],
            properties: Object.fromEntries([...stateKeys].sort().map((key) => [key, {}])),
            // Text messages need a `messages` key in the state (a2aHandlers.ts refuses them otherwise).
            supportsA2A: stateKeys.includes('messages'),
          },
        },
      },
    ],
  };
}
