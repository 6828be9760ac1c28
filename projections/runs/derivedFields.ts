// Fields the runs projector derives from a run's payloads (see docs/read-models.md): the
// thread, the metadata pairs the filter language matches, the run's own token usage and cost,
// and the time of its first streamed token. Pure functions of JSON text.
import { parseStoredJson } from '../../platform/json/jsonNesting.ts';
import { parseTimestampMicros } from '../../platform/time.ts';
import type { Usage } from '../shared/usage.ts';

/** Which metadata key names the thread, first match wins. */
export const THREAD_KEYS = ['thread_id', 'session_id', 'conversation_id'] as const;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseObject(text: string): Json | null {
  if (text === '') return null;
  try {
    // Bounded: metadata values are re-serialised below, which a deeply nested value would overflow.
    const v: unknown = parseStoredJson(text);
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

export interface MetadataFields {
  thread_id: string;
  metadata_keys: string[];
  metadata_values: string[];
}

export function metadataFields(extraText: string): MetadataFields {
  const metadata = parseObject(extraText)?.metadata;
  if (!isObject(metadata)) return { thread_id: '', metadata_keys: [], metadata_values: [] };
  const keys = Object.keys(metadata);
  const values = keys.map((k) => {
    const v = metadata[k];
    return typeof v === 'string' ? v : JSON.stringify(v ?? null);
  });
  let thread = '';
  for (const key of THREAD_KEYS) {
    const v = metadata[key];
    if ((typeof v === 'string' && v !== '') || typeof v === 'number') {
      thread = String(v);
      break;
    }
  }
  return { thread_id: thread, metadata_keys: keys, metadata_values: values };
}

const num = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : typeof v === 'string' && Number(v) > 0 ? Number(v) : 0;

/** Usage in either vocabulary: usage_metadata (input/output) or OpenAI's token_usage (prompt/completion). */
function usageFrom(u: unknown): Usage | null {
  if (!isObject(u)) return null;
  const prompt = Math.round(num(u.input_tokens ?? u.prompt_tokens));
  const completion = Math.round(num(u.output_tokens ?? u.completion_tokens));
  const total = Math.round(num(u.total_tokens)) || prompt + completion;
  const promptCost = num(u.input_cost ?? u.prompt_cost);
  const completionCost = num(u.output_cost ?? u.completion_cost);
  const totalCost = num(u.total_cost) || promptCost + completionCost;
  if (total === 0 && totalCost === 0) return null;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total,
    prompt_cost: promptCost,
    completion_cost: completionCost,
    total_cost: totalCost,
  };
}

/**
 * A run's own usage: only LLM runs count (a chain that echoes its model's message would count
 * the tokens twice). Looked for in outputs.usage_metadata, outputs.llm_output.token_usage,
 * LangChain generations, then extra.metadata.usage_metadata.
 */
export function ownUsage(runType: string, outputsText: string, extraText: string): Usage | null {
  if (runType !== 'llm') return null;
  if (outputsText.includes('usage')) {
    const outputs = parseObject(outputsText);
    if (outputs) {
      const llmOutput = isObject(outputs.llm_output) ? outputs.llm_output : null;
      const generation = Array.isArray(outputs.generations) ? [outputs.generations].flat(2)[0] : null;
      const message = isObject(generation) && isObject(generation.message) ? generation.message : null;
      const fromMessage = message
        ? isObject(message.kwargs)
          ? message.kwargs.usage_metadata
          : message.usage_metadata
        : null;
      const found =
        usageFrom(outputs.usage_metadata) ??
        usageFrom(llmOutput?.token_usage) ??
        usageFrom(llmOutput?.usage) ??
        usageFrom(fromMessage);
      if (found) return found;
    }
  }
  if (extraText.includes('usage_metadata')) {
    const metadata = parseObject(extraText)?.metadata;
    if (isObject(metadata)) return usageFrom(metadata.usage_metadata);
  }
  return null;
}

/** Time of the first `new_token` event (microseconds), or null. */
export function firstTokenTime(eventsText: string): number | null {
  if (!eventsText.includes('new_token')) return null;
  let events: unknown;
  try {
    events = JSON.parse(eventsText);
  } catch {
    return null;
  }
  if (!Array.isArray(events)) return null;
  let first: number | null = null;
  for (const e of events) {
    if (!isObject(e) || e.name !== 'new_token') continue;
    try {
      const t = parseTimestampMicros(e.time, 'events.time');
      if (t !== null && (first === null || t < first)) first = t;
    } catch {
      // an unreadable event time is not a reason to drop the run
    }
  }
  return first;
}
