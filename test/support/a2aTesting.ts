// What the A2A tests share: a v1 client Message with one text part, the A2aError a call throws,
// and the official client's way to send an API key.
import { randomUUID } from 'node:crypto';
import { Role, type Message } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  createAuthenticatingFetchWithRetry,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { A2aError } from '../../services/agent-server/a2a/jsonRpc.ts';

/** A fetch that sends the agent server's API key on every request, through the client's own authentication hook. */
export const apiKeyFetch = (apiKey: string, fetchImpl: typeof fetch = fetch): typeof fetch =>
  createAuthenticatingFetchWithRetry(fetchImpl, {
    headers: async (): Promise<Record<string, string>> => (apiKey ? { 'x-api-key': apiKey } : {}),
    shouldRetryWithHeaders: async () => undefined,
  });

/** The official client factory, sending the API key (its JSON-RPC transport, v0.3 servers spoken to in 0.3 when `legacyCompat`). */
export const a2aClientFactory = (
  apiKey: string,
  options: { legacyCompat?: boolean; fetchImpl?: typeof fetch } = {},
): ClientFactory =>
  new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({
          fetchImpl: apiKeyFetch(apiKey, options.fetchImpl),
          ...(options.legacyCompat ? { legacyCompat: { enabled: true } } : {}),
        }),
      ],
    }),
  );

/** A user message with one text part, for the @a2a-js/sdk v1 client; `contextId` continues a conversation. */
export const userMessage = (text: string, contextId = ''): Message => ({
  messageId: randomUUID(),
  contextId,
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/** The A2aError `fn` throws; fails the test when it throws nothing or something else. */
export function thrownA2aError(fn: () => unknown): A2aError {
  try {
    fn();
  } catch (err) {
    if (err instanceof A2aError) return err;
    throw err;
  }
  throw new Error('expected an A2aError');
}
