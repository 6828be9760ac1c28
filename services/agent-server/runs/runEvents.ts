// Turns what `graph.stream` yields into the LangGraph API's stream events, per the stream modes
// the client asked for. `messages` mode is built here: token chunks of a message accumulate into
// `messages/partial` (after one `messages/metadata` per message id), and messages new in a
// `values` update are sent as `messages/complete`. Checkpoint configs (`checkpoints`, `debug`)
// leave without their `__` keys (the thread's workspace among them), as LangGraph's own
// serializer sends them.
import { isBaseMessageChunk, type BaseMessageChunk } from '@langchain/core/messages';
import type { StreamMode } from './runBody.ts';

/** The graph library's own stream modes that the server asks for to serve the client's. */
export function libraryStreamModes(userModes: StreamMode[]): string[] {
  const lib = new Set<string>(['values']); // always: the run's final values come from here
  for (const mode of userModes) {
    if (mode === 'messages' || mode === 'messages-tuple') lib.add('messages');
    else if (mode !== 'events') lib.add(mode); // events: the run streams its events instead (runManager.ts)
  }
  return [...lib];
}

export interface RunEventSink {
  (event: string, data: unknown): void;
}

export class RunEventTranslator {
  private readonly userModes: Set<StreamMode>;
  private readonly partials = new Map<string, BaseMessageChunk>();
  private readonly completedIds = new Set<string>();
  /** The root graph's latest full state. */
  lastValues: unknown = undefined;

  constructor(userModes: StreamMode[]) {
    this.userModes = new Set(userModes);
  }

  /** One item of `graph.stream(..., {streamMode: [...], subgraphs})`: `[mode, data]` or `[namespace, mode, data]`. */
  translate(item: unknown, subgraphs: boolean, emit: RunEventSink): void {
    const [namespace, mode, data] = (subgraphs ? item : [[], ...(item as unknown[])]) as [string[], string, unknown];
    const suffix = namespace.length > 0 ? `|${namespace.join('|')}` : '';
    const isRoot = namespace.length === 0;
    if (mode === 'values' && isRoot) this.lastValues = data;

    if (mode === 'messages') {
      if (this.userModes.has('messages-tuple')) emit(`messages${suffix}`, data);
      if (this.userModes.has('messages')) this.partialMessage(data as [unknown, Record<string, unknown>], emit);
      return;
    }
    if (this.userModes.has(mode as StreamMode))
      emit(
        `${mode}${suffix}`,
        mode === 'checkpoints' ? publicCheckpoint(data) : mode === 'debug' ? publicDebug(data) : data,
      );
    if (mode === 'values' && isRoot && this.userModes.has('messages')) this.completeMessages(data, emit);
  }

  private partialMessage([chunk, metadata]: [unknown, Record<string, unknown>], emit: RunEventSink): void {
    if (!isBaseMessageChunk(chunk as never)) return; // whole messages arrive as messages/complete from values
    const message = chunk as BaseMessageChunk;
    const id = message.id;
    if (!id) return;
    const sofar = this.partials.get(id);
    if (!sofar) emit('messages/metadata', { [id]: { metadata } });
    const accumulated = sofar ? sofar.concat(message) : message;
    this.partials.set(id, accumulated);
    emit('messages/partial', [accumulated]);
  }

  private completeMessages(values: unknown, emit: RunEventSink): void {
    const messages = (values as { messages?: unknown } | null)?.messages;
    if (!Array.isArray(messages)) return;
    const fresh = messages.filter((m: { id?: string }) => m?.id && !this.completedIds.has(m.id));
    for (const m of fresh) this.completedIds.add(m.id);
    if (fresh.length > 0) emit('messages/complete', fresh);
  }
}

type Json = Record<string, unknown>;

/** A config without its `__` configurable keys. */
function publicConfig(config: unknown): unknown {
  const configurable = (config as { configurable?: Json } | null | undefined)?.configurable;
  if (!configurable) return config;
  return {
    ...(config as Json),
    configurable: Object.fromEntries(Object.entries(configurable).filter(([key]) => !key.startsWith('__'))),
  };
}

function publicCheckpoint(data: unknown): unknown {
  if (data === null || typeof data !== 'object') return data;
  const checkpoint = data as Json;
  return {
    ...checkpoint,
    config: publicConfig(checkpoint.config),
    ...('parentConfig' in checkpoint ? { parentConfig: publicConfig(checkpoint.parentConfig) } : {}),
  };
}

function publicDebug(data: unknown): unknown {
  const event = data as { type?: unknown; payload?: unknown } | null;
  return event?.type === 'checkpoint' ? { ...event, payload: publicCheckpoint(event.payload) } : data;
}

/** Events every join sees, whatever stream modes it asks for. */
const ALWAYS_SENT = new Set(['metadata', 'error', 'feedback']);

/** The stream mode an event belongs to (`messages/partial|ns` → messages, `messages` → messages-tuple); undefined for those every stream gets. */
export function streamModeOfEvent(event: string): string | undefined {
  const name = event.split('|', 1)[0]!;
  if (ALWAYS_SENT.has(name)) return undefined;
  if (name.startsWith('messages/')) return 'messages';
  if (name === 'messages') return 'messages-tuple';
  return name;
}

/**
 * Which of a run's events a join streams, given the stream modes it asks for (a subset of the
 * run's: `stream_mode` of GET …/stream); every event when it asks for none.
 */
export function joinedEvents(modes: readonly string[] | undefined): (event: string) => boolean {
  if (!modes?.length) return () => true;
  const wanted = new Set(modes);
  return (event) => {
    const mode = streamModeOfEvent(event);
    return mode === undefined || wanted.has(mode);
  };
}

/**
 * `stream_mode` of a query string as the SDKs send it: the JS SDK a JSON array in one parameter
 * (`?stream_mode=["values","custom"]`) or a string, the Python SDK repeated parameters, or one
 * empty one for none (`?stream_mode=`).
 */
export function queryStreamModes(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const list = (Array.isArray(value) ? value : [value]).flatMap((v) => {
    if (v === '') return [];
    if (!v.startsWith('[')) return [v];
    try {
      const parsed: unknown = JSON.parse(v);
      return Array.isArray(parsed) ? parsed.map(String) : [v];
    } catch {
      return [v];
    }
  });
  return list.length > 0 ? list : undefined;
}

/**
 * The query-string schema of `stream_mode` taking `modes`: one mode, an empty value (none), the
 * mode repeated, or a JSON array of modes as the JS SDK writes it (`["values","custom"]`).
 */
export function streamModeQuerySchema(modes: readonly string[], description: string) {
  const alternatives = modes.join('|');
  return {
    anyOf: [
      { type: 'string', enum: [...modes, ''] },
      { type: 'string', pattern: `^\\[("(${alternatives})"(,"(${alternatives})")*)?\\]$` },
      { type: 'array', items: { type: 'string', enum: [...modes] } },
    ],
    description,
  };
}
