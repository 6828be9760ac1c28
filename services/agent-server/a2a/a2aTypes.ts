// The A2A objects this server builds, in their v0.3 JSON shapes (`kind`-tagged, lower-case roles
// and states). v1Dialect.ts turns them into v1.0 shapes for clients that call the v1.0 names.

export type TaskState =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'completed'
  | 'canceled'
  | 'failed'
  | 'rejected'
  | 'auth-required'
  | 'unknown';

export type A2aPart =
  | { kind: 'text'; text: string; metadata?: Record<string, unknown> }
  | { kind: 'data'; data: Record<string, unknown>; metadata?: Record<string, unknown> };

export interface A2aMessage {
  kind: 'message';
  role: 'user' | 'agent';
  parts: A2aPart[];
  messageId: string;
  contextId?: string;
  taskId?: string;
  metadata?: Record<string, unknown>;
}

export interface TaskStatus {
  state: TaskState;
  message?: A2aMessage;
  timestamp?: string;
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: A2aPart[];
  metadata?: Record<string, unknown>;
}

export interface Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: TaskStatus;
  history?: A2aMessage[];
  artifacts?: Artifact[];
  metadata?: Record<string, unknown>;
}

export interface TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: TaskStatus;
  final: boolean;
  metadata?: Record<string, unknown>;
}

export interface TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
}

/** What message/stream sends, one per SSE frame. */
export type A2aStreamEvent = Task | A2aMessage | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;
