// JSON as the LangGraph API puts it on the wire: LangChain messages (and anything else with
// `toDict`) become their dict data plus a `type` key, e.g. `{type: "ai", content, id, ...}`.

function replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  if (raw !== null && typeof raw === 'object' && typeof (raw as { toDict?: unknown }).toDict === 'function') {
    const { type, data } = (raw as { toDict(): { type: string; data: Record<string, unknown> } }).toDict();
    return { ...data, type };
  }
  return value;
}

export function toWireJson(value: unknown): string {
  return JSON.stringify(value ?? null, replacer);
}

/** A plain JSON copy of a value in wire form (messages as dicts), safe to keep and compare. */
export function toWireValue<T = unknown>(value: unknown): T {
  return JSON.parse(toWireJson(value)) as T;
}
