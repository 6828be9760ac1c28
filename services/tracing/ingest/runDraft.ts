// Turns a run as the clients send it (JSON object, from POST /runs, PATCH, /runs/batch or a
// multipart part) into a validated RunDraft. `null` means "not provided" everywhere.
import { errors } from '../../../platform/errors.ts';
import { storableTimestampMicros } from '../../../platform/time.ts';
import { optionalUuid, requireUuid } from '../../../platform/ids.ts';

export const RUN_TYPES = ['tool', 'chain', 'llm', 'retriever', 'embedding', 'prompt', 'parser'] as const;

/** Fields that travel as JSON text (split into their own parts by multipart clients). */
export const JSON_FIELDS = ['inputs', 'outputs', 'events', 'extra', 'serialized'] as const;
export type JsonField = (typeof JSON_FIELDS)[number];

export interface AttachmentDraft {
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

export interface RunDraft {
  op: 'post' | 'patch';
  id: string;
  traceId: string | null;
  dottedOrder: string | null;
  parentRunId: string | null;
  sessionId: string | null;
  sessionName: string | null;
  name: string | null;
  runType: string | null;
  startTime: number | null;
  endTime: number | null;
  json: Partial<Record<JsonField, string>>;
  error: string | null;
  tags: string[] | null;
  referenceExampleId: string | null;
  attachments: AttachmentDraft[];
  /** Other ids the run is known by (an OTel span's span-derived id), recorded on the lineage topic too. */
  lineageAliases?: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function optionalString(v: unknown, field: string, max = 1024): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') throw errors.invalidField(`${field} must be a string`);
  if (v.length > max) throw errors.invalidField(`${field} is longer than ${max} characters`);
  return v;
}

/** Checks a JSON field's shape: `events` is an array or an object, the others are objects. */
export function checkJsonField(field: JsonField, value: unknown, runId: string): void {
  const ok = field === 'events' ? Array.isArray(value) || isObject(value) : isObject(value);
  if (!ok)
    throw errors.invalidField(
      `${field} of run ${runId} must be ${field === 'events' ? 'an array or object' : 'an object'}`,
    );
}

/** Checks a JSON field's shape and returns its JSON text. */
export function jsonFieldText(field: JsonField, value: unknown, runId: string): string | null {
  if (value === null || value === undefined) return null;
  checkJsonField(field, value, runId);
  return JSON.stringify(value);
}

export function errorText(value: unknown, runId: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (isObject(value)) return JSON.stringify(value);
  throw errors.invalidField(`error of run ${runId} must be a string`);
}

export interface DraftOptions {
  op: 'post' | 'patch';
  /** Run id from the URL or the part name; must agree with the body's id if both are given. */
  id?: string;
  /** Generate an id when none is given (only POST /runs). */
  generateId?: () => string;
  where: string;
}

export function toRunDraft(body: unknown, options: DraftOptions): RunDraft {
  if (!isObject(body)) throw errors.invalidField(`${options.where} must be a JSON object`);
  let id: string;
  const bodyId = optionalUuid(body.id, `${options.where}: id`);
  if (options.id !== undefined) {
    id = requireUuid(options.id, `${options.where}: run id`);
    if (bodyId !== null && bodyId !== id)
      throw errors.invalidField(`${options.where}: body id ${bodyId} differs from ${id}`);
  } else if (bodyId !== null) id = bodyId;
  else if (options.generateId) id = options.generateId();
  else throw errors.invalidField(`${options.where}: id is required`);

  const where = `${options.where} (run ${id})`;
  const name = optionalString(body.name, `${where}: name`);
  const runType = optionalString(body.run_type, `${where}: run_type`);
  if (options.op === 'post') {
    if (!name) throw errors.invalidField(`${where}: name is required`);
    if (!runType) throw errors.invalidField(`${where}: run_type is required`);
  }
  if (runType !== null && !(RUN_TYPES as readonly string[]).includes(runType))
    throw errors.invalidField(`${where}: run_type "${runType}" is not one of ${RUN_TYPES.join(', ')}`);

  let tags: string[] | null = null;
  if (body.tags !== null && body.tags !== undefined) {
    if (!Array.isArray(body.tags) || !body.tags.every((t) => typeof t === 'string'))
      throw errors.invalidField(`${where}: tags must be an array of strings`);
    tags = body.tags as string[];
  }

  const json: RunDraft['json'] = {};
  for (const field of JSON_FIELDS) {
    const text = jsonFieldText(field, body[field], id);
    if (text !== null) json[field] = text;
  }

  return {
    op: options.op,
    id,
    traceId: optionalUuid(body.trace_id, `${where}: trace_id`),
    dottedOrder: optionalString(body.dotted_order, `${where}: dotted_order`, 64 * 1024),
    parentRunId: optionalUuid(body.parent_run_id, `${where}: parent_run_id`),
    sessionId: optionalUuid(body.session_id, `${where}: session_id`),
    sessionName: optionalString(body.session_name, `${where}: session_name`, 512),
    name,
    runType,
    startTime: storableTimestampMicros(body.start_time, `${where}: start_time`),
    endTime: storableTimestampMicros(body.end_time, `${where}: end_time`),
    json,
    error: errorText(body.error, id),
    tags,
    referenceExampleId: optionalUuid(body.reference_example_id, `${where}: reference_example_id`),
    attachments: [],
  };
}
