// An example as the clients' Example models read it: its splits in metadata.dataset_split, its
// version's time as modified_at (JS's evaluate() needs it non-null), and each attachment as
// `attachment.<name>` with a presigned URL that needs no credentials (Python downloads them at
// once, with a bare GET). The JSON schema the routes declare for it is beside it.
import type { BlobStore } from '../../platform/blobStore.ts';
import { formatIsoMicros } from '../../platform/time.ts';
import { attachmentsOf, type ExampleRow } from '../../projections/examples/exampleRow.ts';

export const exampleSchema = {
  type: 'object',
  description: 'An example of a dataset, as it was at the version read',
  additionalProperties: false,
  required: ['id', 'dataset_id', 'inputs', 'outputs', 'metadata', 'created_at', 'modified_at'],
  properties: {
    id: { type: 'string', description: 'UUID' },
    dataset_id: { type: 'string', description: 'UUID' },
    inputs: { type: 'object', additionalProperties: true },
    outputs: { type: ['object', 'null'], additionalProperties: true, description: 'the reference outputs' },
    metadata: {
      type: 'object',
      additionalProperties: true,
      description: 'the example’s metadata, with its splits as dataset_split',
    },
    created_at: { type: 'string', description: 'ISO 8601, UTC' },
    modified_at: { type: 'string', description: 'ISO 8601, UTC: the version read (its write’s time)' },
    source_run_id: { type: ['string', 'null'], description: 'its source run, if any' },
    attachment_urls: {
      type: ['object', 'null'],
      description: '`attachment.<name>`: a presigned URL (an hour) and the MIME type',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          presigned_url: { type: 'string' },
          mime_type: { type: 'string' },
          size: { type: 'integer' },
        },
      },
    },
    name: { type: ['string', 'null'] },
  },
} as const;

export async function exampleResponse(row: ExampleRow, blobs: BlobStore) {
  const attachments = attachmentsOf(row);
  let urls: Record<string, { presigned_url: string; mime_type: string; size: number }> | null = null;
  if (attachments.length > 0) {
    urls = {};
    for (const a of attachments)
      urls[`attachment.${a.name}`] = {
        presigned_url: await blobs.presignedUrl({
          bucket: a.bucket,
          key: a.key,
          size: a.size,
          content_type: a.content_type,
        }),
        mime_type: a.content_type,
        size: a.size,
      };
  }
  return {
    id: row.id,
    dataset_id: row.dataset_id,
    inputs: JSON.parse(row.inputs) as Record<string, unknown>,
    outputs: row.outputs === null ? null : (JSON.parse(row.outputs) as Record<string, unknown>),
    metadata: { ...(JSON.parse(row.metadata) as Record<string, unknown>), dataset_split: row.splits },
    created_at: formatIsoMicros(row.created_at),
    modified_at: formatIsoMicros(row.modified_at),
    source_run_id: row.source_run_id,
    attachment_urls: urls,
    name: null,
  };
}
