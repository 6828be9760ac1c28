// What the A2A tests share: a v1 client Message with one text part, and the A2aError a call throws.
import { randomUUID } from 'node:crypto';
import { Role, type Message } from '@a2a-js/sdk';
import { A2aError } from '../../services/agent-server/a2a/jsonRpc.ts';

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
