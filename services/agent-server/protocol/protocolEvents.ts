// One run's protocol events as they go on the wire. LangGraph's `streamEvents(…, {version: "v3"})`
// already speaks the protocol (messages as content blocks, tools, lifecycle, values, updates,
// checkpoints, tasks, custom, subagent namespaces); what it leaves to a server is done here:
//
// - every event gets the thread's next `seq` and an `event_id` (`<run_id>.<seq>`), by which
//   clients de-duplicate what a reconnect replays and resume with `since`;
// - payloads become plain JSON (LangChain messages as role-keyed dicts, ../wireJson.ts);
// - an interrupt (`__interrupt__` in values, or the `__interrupt__` update) becomes one
//   `input.requested {interrupt_id, payload}` per interrupt, and the root's terminal lifecycle is
//   then `interrupted` rather than `completed` (LangGraph raises no `input` event itself);
// - the root's lifecycle names the graph (`graph_name`);
// - tool-call argument slices go out in the form @langchain/react 1.1 reads (./toolCallDeltas.ts).
import { toWireForm } from '../wireJson.ts';
import type { WireEvent } from './runLog.ts';
import { ToolCallDeltaRewriter } from './toolCallDeltas.ts';

/** An event as LangGraph's v3 stream yields it. */
export interface RawProtocolEvent {
  method: string;
  params: { namespace?: string[]; timestamp?: number; node?: string; data: unknown; [key: string]: unknown };
  [key: string]: unknown;
}

export type RootTerminal = 'completed' | 'failed' | 'interrupted';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The interrupts in a values payload or an `__interrupt__` update, as `{id, value}`. */
function interruptsOf(value: unknown): { id: string; value: unknown }[] {
  const list = Array.isArray(value) ? value : isObject(value) ? value.__interrupt__ : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry) =>
    isObject(entry) && typeof entry.id === 'string' ? [{ id: entry.id, value: entry.value }] : [],
  );
}

export class ProtocolEventTranslator {
  readonly #runId: string;
  readonly #graphName: string;
  readonly #nextSeq: () => number;
  readonly #deltas = new ToolCallDeltaRewriter();
  /** Interrupt ids already announced with `input.requested`. */
  readonly #requested = new Set<string>();
  #terminal: RootTerminal | undefined;
  /** The root's latest values (without `__interrupt__`). */
  lastValues: unknown = undefined;

  constructor(runId: string, graphName: string, nextSeq: () => number) {
    this.#runId = runId;
    this.#graphName = graphName;
    this.#nextSeq = nextSeq;
  }

  /** The root's terminal lifecycle, once sent. */
  get terminal(): RootTerminal | undefined {
    return this.#terminal;
  }

  /** Whether the run has asked for input (an interrupt). */
  get interrupted(): boolean {
    return this.#requested.size > 0;
  }

  /** The wire events for one event of LangGraph's stream: none, one, or an interrupt's several. */
  translate(raw: RawProtocolEvent): WireEvent[] {
    const namespace = raw.params.namespace ?? [];
    const data = toWireForm(raw.params.data);
    switch (raw.method) {
      case 'values': {
        if (!isObject(data) || !('__interrupt__' in data)) {
          if (namespace.length === 0) this.lastValues = data;
          return [this.#event(raw, namespace, data)];
        }
        // LangGraph's chunk of an interrupt: the interrupts, beside no values or the state's
        const requested = this.#inputRequests(namespace, interruptsOf(data));
        const values = withoutInterrupts(data);
        if (Object.keys(values).length === 0) return requested;
        if (namespace.length === 0) this.lastValues = values;
        return [...requested, this.#event(raw, namespace, values)];
      }
      case 'updates':
        if (isObject(data) && data.node === '__interrupt__')
          return this.#inputRequests(namespace, interruptsOf(data.values));
        return [this.#event(raw, namespace, data)];
      case 'lifecycle': {
        if (namespace.length > 0 || !isObject(data)) return [this.#event(raw, namespace, data)];
        let state = data.event;
        if (state === 'completed' && this.interrupted) state = 'interrupted';
        if (state === 'completed' || state === 'failed' || state === 'interrupted') {
          if (this.#terminal) return []; // one end per run
          this.#terminal = state;
        }
        return [this.#event(raw, namespace, { ...data, event: state, graph_name: this.#graphName })];
      }
      case 'messages':
        return [this.#event(raw, namespace, this.#deltas.rewrite(raw.method, namespace, raw.params.node, data))];
      default:
        return [this.#event(raw, namespace, data)];
    }
  }

  /** The root's `failed`, for a run whose stream broke off without saying so itself. */
  failed(message: string): WireEvent {
    this.#terminal = 'failed';
    return this.#event({ method: 'lifecycle', params: { namespace: [], data: null } }, [], {
      event: 'failed',
      graph_name: this.#graphName,
      error: message,
    });
  }

  #inputRequests(namespace: string[], interrupts: { id: string; value: unknown }[]): WireEvent[] {
    const events: WireEvent[] = [];
    for (const { id, value } of interrupts) {
      if (this.#requested.has(id)) continue;
      this.#requested.add(id);
      events.push(
        this.#event({ method: 'input.requested', params: { namespace, data: null } }, namespace, {
          interrupt_id: id,
          payload: value,
        }),
      );
    }
    return events;
  }

  #event(raw: RawProtocolEvent, namespace: string[], data: unknown): WireEvent {
    const seq = this.#nextSeq();
    return {
      type: 'event',
      event_id: `${this.#runId}.${seq}`,
      seq,
      method: raw.method,
      params: { ...raw.params, namespace, timestamp: raw.params.timestamp ?? Date.now(), data },
    };
  }
}

function withoutInterrupts(values: Json): Json {
  const { __interrupt__: _interrupts, ...rest } = values;
  return rest;
}
