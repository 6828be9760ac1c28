// The A2A method names this endpoint answers: the v0.3 slash names and their v1.0 PascalCase
// aliases. The name also decides the dialect of the answer: v0.3 names get v0.3 shapes
// (`kind`-tagged objects, lower-case roles and states), v1.0 names get v1.0 shapes
// (`{task}` / `{statusUpdate}` wrappers, ROLE_* and TASK_STATE_*), so clients of either
// version read what they expect.
import { a2aErrors } from './jsonRpc.ts';

export type A2aOperation = 'send' | 'stream' | 'getTask' | 'cancelTask' | 'agentCard';
export type A2aDialect = 'v0.3' | 'v1';

export interface A2aMethod {
  operation: A2aOperation;
  dialect: A2aDialect;
}

const METHODS: Record<string, A2aMethod> = {
  'message/send': { operation: 'send', dialect: 'v0.3' },
  'message/stream': { operation: 'stream', dialect: 'v0.3' },
  'tasks/get': { operation: 'getTask', dialect: 'v0.3' },
  'tasks/cancel': { operation: 'cancelTask', dialect: 'v0.3' },
  'agent/getAuthenticatedExtendedCard': { operation: 'agentCard', dialect: 'v0.3' },
  SendMessage: { operation: 'send', dialect: 'v1' },
  SendStreamingMessage: { operation: 'stream', dialect: 'v1' },
  GetTask: { operation: 'getTask', dialect: 'v1' },
  CancelTask: { operation: 'cancelTask', dialect: 'v1' },
  GetExtendedAgentCard: { operation: 'agentCard', dialect: 'v1' },
};

/** A2A methods this server knows but does not offer (no push notifications, no resubscribing, no task listing). */
const UNSUPPORTED = new Set([
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'SubscribeToTask',
  'ListTasks',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);

export function a2aMethod(name: string): A2aMethod {
  const method = Object.hasOwn(METHODS, name) ? METHODS[name] : undefined;
  if (method) return method;
  throw UNSUPPORTED.has(name) ? a2aErrors.methodNotSupported(name) : a2aErrors.methodNotFound(name);
}

/** The `A2A-Version` header a client may send: 0.3 or 1.x (1.x minors are backward compatible), or none. */
export function checkA2aVersion(header: string | undefined): void {
  const version = header?.trim();
  if (!version) return;
  if (!/^(0\.3|1)(\.\d+)*$/.test(version)) throw a2aErrors.versionNotSupported(version);
}
