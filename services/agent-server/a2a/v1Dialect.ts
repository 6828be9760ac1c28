// A2A v1.0 JSON (the ProtoJSON of a2a.proto) for the v0.3 objects the server builds: no `kind`
// tags, roles ROLE_USER/ROLE_AGENT, states TASK_STATE_*, parts as a oneof (`{text}` or `{data}`),
// send results wrapped as `{task}` and stream events as `{task}`, `{message}`, `{statusUpdate}`
// or `{artifactUpdate}` (no `final` flag: the stream simply ends).
import type { A2aMessage, A2aPart, A2aStreamEvent, Artifact, Task, TaskState, TaskStatus } from './a2aTypes.ts';
import type { A2aDialect } from './a2aMethods.ts';

type Json = Record<string, unknown>;

const V1_STATES: Record<TaskState, string> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};

const withMetadata = (json: Json, metadata: Json | undefined): Json => (metadata ? { ...json, metadata } : json);

function v1Part(part: A2aPart): Json {
  return withMetadata(part.kind === 'text' ? { text: part.text } : { data: part.data }, part.metadata);
}

export function v1Message(message: A2aMessage): Json {
  return withMetadata(
    {
      messageId: message.messageId,
      ...(message.contextId ? { contextId: message.contextId } : {}),
      ...(message.taskId ? { taskId: message.taskId } : {}),
      role: message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT',
      parts: message.parts.map(v1Part),
    },
    message.metadata,
  );
}

function v1Status(status: TaskStatus): Json {
  return {
    state: V1_STATES[status.state],
    ...(status.message ? { message: v1Message(status.message) } : {}),
    ...(status.timestamp ? { timestamp: status.timestamp } : {}),
  };
}

function v1Artifact(artifact: Artifact): Json {
  return withMetadata(
    {
      artifactId: artifact.artifactId,
      ...(artifact.name ? { name: artifact.name } : {}),
      ...(artifact.description ? { description: artifact.description } : {}),
      parts: artifact.parts.map(v1Part),
    },
    artifact.metadata,
  );
}

export function v1Task(task: Task): Json {
  return withMetadata(
    {
      id: task.id,
      contextId: task.contextId,
      status: v1Status(task.status),
      ...(task.artifacts ? { artifacts: task.artifacts.map(v1Artifact) } : {}),
      ...(task.history ? { history: task.history.map(v1Message) } : {}),
    },
    task.metadata,
  );
}

export function v1StreamResponse(event: A2aStreamEvent): Json {
  switch (event.kind) {
    case 'task':
      return { task: v1Task(event) };
    case 'message':
      return { message: v1Message(event) };
    case 'status-update':
      return {
        statusUpdate: withMetadata(
          { taskId: event.taskId, contextId: event.contextId, status: v1Status(event.status) },
          event.metadata,
        ),
      };
    case 'artifact-update':
      return {
        artifactUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          artifact: v1Artifact(event.artifact),
          append: event.append ?? false,
          lastChunk: event.lastChunk ?? false,
        },
      };
  }
}

/** A send result (a Task) as the dialect's clients read it. */
export function sendResult(task: Task, dialect: A2aDialect): unknown {
  return dialect === 'v1' ? { task: v1Task(task) } : task;
}

/** A task (tasks/get, tasks/cancel) as the dialect's clients read it. */
export function taskResult(task: Task, dialect: A2aDialect): unknown {
  return dialect === 'v1' ? v1Task(task) : task;
}

/** One message/stream event as the dialect's clients read it. */
export function streamResult(event: A2aStreamEvent, dialect: A2aDialect): unknown {
  return dialect === 'v1' ? v1StreamResponse(event) : event;
}
