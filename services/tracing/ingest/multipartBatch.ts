// Reads a POST /runs/multipart body (whole, decoded; multipartParts.ts splits it) and assembles
// it into run drafts and feedback. Any problem (bad part name, wrong declared length, invalid JSON, truncation)
// rejects the whole request before anything is appended.
import type { Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import { errors } from '../../../platform/errors.ts';
import { readDecodedBody } from '../../../platform/http/requestBody.ts';
import {
  checkDeclaredLength,
  multipartBoundary,
  MultipartSyntaxError,
  parseJsonPart,
  partName,
  splitMultipart,
  type RawPart,
} from '../../../platform/http/multipartParts.ts';
import { toRunDraft, errorText, checkJsonField, type JsonField, type RunDraft } from './runDraft.ts';
import { requireUuid } from '../../../platform/ids.ts';
import { toFeedbackDraft, type FeedbackDraft } from './feedbackDraft.ts';

export interface MultipartBatch {
  runs: RunDraft[];
  feedback: FeedbackDraft[];
}

const PART_NAME = /^(post|patch)\.([^.]+)(?:\.(inputs|outputs|events|extra|error|serialized))?$/;
const ATTACHMENT = /^attachment\.([^.]+)\.(.+)$/;
const FEEDBACK = /^feedback\.([^.]+)$/;

export async function readMultipartBatch(
  body: Readable,
  headers: IncomingHttpHeaders,
  limit: number,
): Promise<MultipartBatch> {
  const contentType = String(headers['content-type'] ?? '');
  const boundary = multipartBoundary(contentType);
  if (!contentType.toLowerCase().startsWith('multipart/') || !boundary) {
    body.resume();
    throw errors.unsupportedMediaType(contentType || '(none)', 'multipart/form-data with a boundary');
  }

  const mains: Array<{ op: 'post' | 'patch'; id: string; name: string; body: unknown }> = [];
  const fields = new Map<string, Map<JsonField | 'error', string>>();
  const attachments: Array<{ runId: string; name: string; contentType: string; bytes: Uint8Array }> = [];
  const feedback: FeedbackDraft[] = [];
  const seen = new Set<string>();

  const handle = (part: RawPart) => {
    const name = partName(part);
    if (seen.has(name)) throw errors.invalidMultipart(`part ${name} appears twice`);
    seen.add(name);
    checkDeclaredLength(part, name);

    let m = PART_NAME.exec(name);
    if (m) {
      const op = m[1] as 'post' | 'patch';
      const id = requireUuid(m[2], `part ${name}: run id`);
      const field = m[3] as JsonField | 'error' | undefined;
      if (!field) {
        mains.push({ op, id, name, body: parseJsonPart(part, name).value });
        return;
      }
      const { text, value } = parseJsonPart(part, name);
      const key = `${op}.${id}`;
      if (!fields.has(key)) fields.set(key, new Map());
      if (field === 'error') {
        const error = errorText(value, id);
        if (error !== null) fields.get(key)!.set('error', error);
      } else if (value !== null) {
        // Validate the shape through the same rule as inline fields, keep the client's own text.
        checkJsonField(field, value, id);
        fields.get(key)!.set(field, text);
      }
      return;
    }
    if ((m = ATTACHMENT.exec(name))) {
      attachments.push({
        runId: requireUuid(m[1], `part ${name}: run id`),
        name: m[2]!,
        contentType: (part.headers.get('content-type') ?? 'application/octet-stream').split(';')[0]!.trim(),
        bytes: part.body,
      });
      return;
    }
    if ((m = FEEDBACK.exec(name))) {
      feedback.push(toFeedbackDraft(parseJsonPart(part, name).value, m[1]!, `part ${name}`));
      return;
    }
    throw errors.invalidMultipart(
      `unknown part name "${name.slice(0, 100)}": expected post.<id>, patch.<id>, <op>.<id>.<field>, attachment.<id>.<name> or feedback.<id>`,
    );
  };

  let parts: RawPart[];
  try {
    parts = splitMultipart(await readDecodedBody(body, headers, limit), boundary);
  } catch (err) {
    body.resume();
    if (err instanceof MultipartSyntaxError) throw errors.invalidMultipart(err.message);
    throw err;
  }
  for (const part of parts) handle(part);

  const runs: RunDraft[] = [];
  const byKey = new Map<string, RunDraft>();
  for (const main of mains) {
    const draft = toRunDraft(main.body, { op: main.op, id: main.id, where: `part ${main.name}` });
    for (const [field, text] of fields.get(`${main.op}.${main.id}`) ?? []) {
      if (field === 'error') draft.error = text;
      else draft.json[field] = text;
    }
    fields.delete(`${main.op}.${main.id}`);
    byKey.set(`${main.op}.${main.id}`, draft);
    runs.push(draft);
  }
  for (const key of fields.keys()) throw errors.invalidMultipart(`parts for ${key} were sent without a ${key} part`);
  for (const a of attachments) {
    const target = byKey.get(`post.${a.runId}`) ?? byKey.get(`patch.${a.runId}`);
    if (!target)
      throw errors.invalidMultipart(
        `attachment.${a.runId}.${a.name} belongs to a run that is neither posted nor patched in this request`,
      );
    target.attachments.push({ name: a.name, contentType: a.contentType, bytes: a.bytes });
  }
  if (runs.length === 0 && feedback.length === 0) throw errors.invalidMultipart('the multipart body has no parts');
  return { runs, feedback };
}
