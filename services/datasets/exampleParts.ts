// Reads the multipart body the clients send to create or change examples
// (POST and PATCH /v1/platform/datasets/{dataset_id}/examples): per example, a part `<id>` (its
// JSON: metadata, split, created_at, source_run_id…), `<id>.inputs` and `<id>.outputs` (JSON),
// `<id>.attachment.<name>` (raw bytes, their own type) and `<id>.attachments_operations` (JSON:
// {rename, retain}). JS names each part with filename "blob", Python with none: only the name
// counts. Any problem rejects the whole request before anything is stored or appended.
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { errors } from '../../platform/errors.ts';
import {
  checkDeclaredLength,
  headerParam,
  multipartBoundary,
  MultipartSyntaxError,
  parseJsonPart,
  partName,
  splitMultipart,
} from '../../platform/http/multipartParts.ts';
import { readDecodedBody } from '../../platform/http/requestBody.ts';
import { toUuid } from '../../platform/ids.ts';
import type { AttachmentUpload } from './exampleCommands.ts';

export interface ExampleParts {
  id: string;
  /** The `<id>` part's JSON object; null when there was none. */
  main: Record<string, unknown> | null;
  /** Undefined: no such part. */
  inputs?: unknown;
  outputs?: unknown;
  attachments: AttachmentUpload[];
  attachmentsOperations?: unknown;
}

const PART = /^([^.]+)(?:\.(inputs|outputs|attachments_operations)|\.attachment\.(.+))?$/;

/**
 * A multipart body's parts (name and bytes), after its Content-Type and syntax are checked. `body`
 * is what the route got: the stream (only multipart/form-data comes as one), a parsed body of
 * another type, or nothing.
 */
async function partsOf(body: unknown, headers: IncomingHttpHeaders, limit: number) {
  if (body === undefined || body === null)
    throw errors.invalidMultipart('the request has no body: send it as multipart/form-data');
  const contentType = String(headers['content-type'] ?? '');
  if (!(body instanceof Readable))
    throw errors.unsupportedMediaType(contentType || '(none)', 'multipart/form-data with a boundary');
  const boundary = multipartBoundary(contentType);
  if (!contentType.toLowerCase().startsWith('multipart/') || !boundary) {
    body.resume();
    throw errors.unsupportedMediaType(contentType || '(none)', 'multipart/form-data with a boundary');
  }
  try {
    return splitMultipart(await readDecodedBody(body, headers, limit), boundary);
  } catch (err) {
    body.resume();
    if (err instanceof MultipartSyntaxError) throw errors.invalidMultipart(err.message);
    throw err;
  }
}

/** A form's fields (text, repeated ones in order) and its files, by name (POST /datasets/upload). */
export async function readForm(
  body: unknown,
  headers: IncomingHttpHeaders,
  limit: number,
): Promise<{ fields: Map<string, string[]>; files: Map<string, { filename: string | null; bytes: Buffer }> }> {
  const fields = new Map<string, string[]>();
  const files = new Map<string, { filename: string | null; bytes: Buffer }>();
  for (const part of await partsOf(body, headers, limit)) {
    const name = partName(part);
    checkDeclaredLength(part, name);
    const filename = headerParam(part.headers.get('content-disposition') ?? '', 'filename');
    if (filename !== null || name === 'file') files.set(name, { filename, bytes: part.body });
    else fields.set(name, [...(fields.get(name) ?? []), part.body.toString('utf8')]);
  }
  return { fields, files };
}

/** The examples of a multipart body, in the order their first part came. */
export async function readExampleParts(
  body: unknown,
  headers: IncomingHttpHeaders,
  limit: number,
): Promise<ExampleParts[]> {
  const raw = await partsOf(body, headers, limit);
  const examples = new Map<string, ExampleParts>();
  const seen = new Set<string>();
  for (const part of raw) {
    const name = partName(part);
    if (seen.has(name)) throw errors.invalidMultipart(`part ${name} appears twice`);
    seen.add(name);
    checkDeclaredLength(part, name);
    const m = PART.exec(name);
    if (!m)
      throw errors.invalidMultipart(
        `unknown part name "${name.slice(0, 100)}": expected <id>, <id>.inputs, <id>.outputs, <id>.attachment.<name> or <id>.attachments_operations`,
      );
    const id = toUuid(m[1]!);
    if (!id) throw errors.invalidMultipart(`part ${name.slice(0, 100)}: the example id is not a UUID`);
    let example = examples.get(id);
    if (!example) examples.set(id, (example = { id, main: null, attachments: [] }));
    if (m[3] !== undefined) {
      example.attachments.push({
        name: m[3],
        contentType: (part.headers.get('content-type') ?? 'application/octet-stream').split(';')[0]!.trim(),
        bytes: part.body,
      });
      continue;
    }
    const { value } = parseJsonPart(part, name);
    if (m[2] === 'inputs') example.inputs = value;
    else if (m[2] === 'outputs') example.outputs = value;
    else if (m[2] === 'attachments_operations') example.attachmentsOperations = value;
    else {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw errors.invalidMultipart(`part ${name} must be a JSON object`);
      example.main = value as Record<string, unknown>;
    }
  }
  if (examples.size === 0) throw errors.invalidMultipart('the body names no example');
  return [...examples.values()];
}
