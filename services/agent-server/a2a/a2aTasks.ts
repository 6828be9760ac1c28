// A2A tasks are LangGraph runs: the task id is `{contextId}:{run_id}`, where the contextId is the
// thread id. A run's status (and whether its thread waits on an interrupt) gives the task state;
// its final values give the history, the answer artifact and the status message.
import { validate as isUuid } from 'uuid';
import type { RunStatus } from '../store/agentRecords.ts';
import type { A2aMessage, Artifact, Task, TaskState, TaskStatus } from './a2aTypes.ts';
import { a2aErrors } from './jsonRpc.ts';
import { a2aHistory, agentMessage, answerMessage, stateMessages } from './messageMapping.ts';

type Json = Record<string, unknown>;

export interface TaskIds {
  taskId: string;
  contextId: string;
  runId: string;
  assistantId: string;
}

export function compositeTaskId(contextId: string, runId: string): string {
  return `${contextId}:${runId}`;
}

export function taskIdsOf(contextId: string, runId: string, assistantId: string): TaskIds {
  return { taskId: compositeTaskId(contextId, runId), contextId, runId, assistantId };
}

/**
 * The thread and run a task id names. `{contextId}:{runId}` is the form this server hands out;
 * a bare run id (older servers' form) has no thread, and is found only while the run is in memory.
 * A `contextId` param, when given, names the thread.
 */
export function parseTaskId(id: string, contextId?: string): { contextId?: string; runId: string } {
  const [first, second, ...rest] = id.split(':');
  const runId = second === undefined ? first : second;
  const context = contextId ?? (second === undefined ? undefined : first);
  if (rest.length > 0 || !runId || !isUuid(runId) || (context !== undefined && !isUuid(context)))
    throw a2aErrors.taskNotFound(id);
  return { contextId: context?.toLowerCase(), runId: runId.toLowerCase() };
}

export interface Interrupt {
  id?: string;
  value: unknown;
}

/** A run as a task sees it: its status, the thread's values at its end (or now), its pending interrupts and error. */
export interface RunView {
  status: RunStatus;
  values: Json | null;
  interrupts: Interrupt[];
  error?: string;
}

/** Interrupts in wire form (`[{id, value}]`, as the run's values and the thread record hold them). */
export function asInterrupts(raw: unknown): Interrupt[] {
  return Array.isArray(raw)
    ? raw.map((i) => (typeof i === 'object' && i !== null && 'value' in i ? (i as Interrupt) : { value: i }))
    : [];
}

/** The interrupts a run's final values carry under `__interrupt__`, and the values without them. */
export function splitInterrupts(values: Json | null): { values: Json | null; interrupts: Interrupt[] } {
  if (!values || !('__interrupt__' in values)) return { values, interrupts: [] };
  const { __interrupt__: raw, ...rest } = values;
  return { values: rest, interrupts: asInterrupts(raw) };
}

export function taskState(status: RunStatus, waitingForInput: boolean): TaskState {
  if (waitingForInput && status !== 'pending' && status !== 'running' && status !== 'error' && status !== 'timeout')
    return 'input-required';
  switch (status) {
    case 'pending':
      return 'submitted';
    case 'running':
      return 'working';
    case 'success':
      return 'completed';
    case 'interrupted': // a run cancelled (tasks/cancel, or a newer run's multitask strategy)
      return 'canceled';
    case 'error':
    case 'timeout':
      return 'failed';
  }
}

export function responseArtifact(ids: TaskIds, parts: Artifact['parts']): Artifact {
  return {
    artifactId: `${ids.runId}-response`,
    name: 'Assistant Response',
    description: `Response from assistant ${ids.assistantId}`,
    parts,
  };
}

export function interruptArtifact(ids: TaskIds, interrupts: Interrupt[]): Artifact {
  return {
    artifactId: `${ids.runId}-interrupt`,
    name: 'Interrupt',
    description: 'The assistant is waiting for input: answer with a message on the same contextId and taskId',
    parts: interrupts.map((i) => ({ kind: 'data', data: { id: i.id ?? null, value: i.value } })),
  };
}

const interruptText = (interrupts: Interrupt[]) =>
  interrupts.map((i) => (typeof i.value === 'string' ? i.value : JSON.stringify(i.value))).join('\n');

export interface TaskOptions {
  timestamp: string;
  historyLength?: number;
  /** History when the values have no messages (e.g. a run that failed before its first step). */
  fallbackHistory?: A2aMessage[];
}

/** The answer of a finished run: its AI text, else its values as data (an assistant without messages). */
function answerOf(values: Json | null): { parts: Artifact['parts']; text?: string; messageId?: string } | undefined {
  const answer = answerMessage(stateMessages(values));
  if (answer) return { parts: [{ kind: 'text', text: answer.text }], text: answer.text, messageId: answer.id };
  if (values && !('messages' in values)) return { parts: [{ kind: 'data', data: values }] };
  return undefined;
}

/** The task a run is: state, status message, artifacts and history. */
export function taskOfRun(ids: TaskIds, run: RunView, options: TaskOptions): Task {
  const state = taskState(run.status, run.interrupts.length > 0);
  const say = (text: string, messageId = `${ids.runId}-status`) =>
    agentMessage(text, messageId, ids.contextId, ids.taskId);
  const status: TaskStatus = { state, timestamp: options.timestamp };
  let artifacts: Artifact[] | undefined;
  if (state === 'completed') {
    const answer = answerOf(run.values);
    if (answer) artifacts = [responseArtifact(ids, answer.parts)];
    if (answer?.text !== undefined) status.message = say(answer.text, answer.messageId);
  } else if (state === 'input-required') {
    artifacts = [interruptArtifact(ids, run.interrupts)];
    status.message = say(interruptText(run.interrupts));
  } else if (state === 'failed') {
    status.message = say(`Error executing assistant: ${run.error ?? `the run ended with status ${run.status}`}`);
  } else if (state === 'canceled') {
    status.message = say('The task was canceled');
  }
  const messages = stateMessages(run.values);
  const history =
    messages.length > 0 ? a2aHistory(messages, ids.contextId, ids.taskId) : (options.fallbackHistory ?? []);
  const kept =
    options.historyLength === undefined ? history : history.slice(Math.max(0, history.length - options.historyLength));
  return {
    kind: 'task',
    id: ids.taskId,
    contextId: ids.contextId,
    status,
    ...(artifacts ? { artifacts } : {}),
    history: kept,
  };
}
