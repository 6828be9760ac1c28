// JSON as the LangGraph API puts it on the wire: LangChain messages (and anything else with
// `toDict`) become their dict data plus a `type` key, e.g. `{type: "ai", content, id, ...}`.
//
// The value is turned into wire form in one walk and then stringified without a replacer: a
// replacer makes JSON.stringify call each message's toJSON (LangChain's Serializable.toJSON,
// not cheap) before the replacer throws that away for toDict (which calls toJSON again), and it
// takes JSON.stringify off its fast path. The walk does what JSON.stringify with the replacer
// did: toDict wins over toJSON, toJSON(key) is honoured otherwise, and what comes out is walked.

type Dictable = { toDict(): { type: string; data: Record<string, unknown> } };
type Jsonable = { toJSON(key: string): unknown };

/**
 * `value` (found under `key`) with every toDict-able object in it replaced by its dict form;
 * `ancestors` are the objects being walked above it (a cycle is JSON.stringify's TypeError).
 */
function toWireFormAt(value: unknown, key: string, ancestors: Set<object>): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as Partial<Dictable>).toDict === 'function') {
    const { type, data } = (value as Dictable).toDict();
    return toWireFormAt({ ...data, type }, key, ancestors);
  }
  if (typeof (value as Partial<Jsonable>).toJSON === 'function')
    return toWireFormAt((value as Jsonable).toJSON(key), key, ancestors);
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return value.valueOf();
  if (ancestors.has(value)) throw new TypeError('Converting circular structure to JSON');
  ancestors.add(value);
  let out: unknown[] | Record<string, unknown>;
  if (Array.isArray(value)) {
    out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = toWireFormAt(value[i], String(i), ancestors);
  } else {
    out = {};
    for (const k of Object.keys(value)) out[k] = toWireFormAt((value as Record<string, unknown>)[k], k, ancestors);
  }
  ancestors.delete(value);
  return out;
}

/** `value` in wire form (messages as dicts), without the round trip through a string: for what is encoded later. */
export function toWireForm(value: unknown): unknown {
  return toWireFormAt(value ?? null, '', new Set());
}

export function toWireJson(value: unknown): string {
  return JSON.stringify(toWireForm(value));
}

/** A plain JSON copy of a value in wire form (messages as dicts), safe to keep and compare. */
export function toWireValue<T = unknown>(value: unknown): T {
  return JSON.parse(toWireJson(value)) as T;
}
