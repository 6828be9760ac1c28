// The A2A agent card of an assistant. One card serves clients of both protocol versions:
// v1.0 clients pick an entry of `supportedInterfaces` (they prefer protocolVersion "1.0"), v0.3
// clients read the top-level `url`, `preferredTransport` and `protocolVersion`. The endpoint
// answers both: the method names a client calls decide the shapes it gets back (a2aMethods.ts).
import type { RegisteredGraph } from '../graphRegistry.ts';

/** The v0.3 protocol version the card's top-level fields describe. */
export const A2A_V03_PROTOCOL_VERSION = '0.3.0';
const MODES = ['application/json', 'text/plain'];

/** The JSON-RPC endpoint of an assistant. */
export function a2aEndpointUrl(baseUrl: string, assistantId: string): string {
  return `${baseUrl}/a2a/${assistantId}`;
}

export function agentCard(
  registered: RegisteredGraph,
  baseUrl: string,
  serverVersion: string,
): Record<string, unknown> {
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
