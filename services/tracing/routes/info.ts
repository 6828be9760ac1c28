import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../platform/config.ts';
import { SERVICE_VERSION } from '../version.ts';

/** GET /info: what the official clients read to pick routes, limits and body encodings. */
export function infoRoutes(app: FastifyInstance, config: Config): void {
  app.get(
    '/info',
    {
      schema: {
        tags: ['meta'],
        summary: 'Server capabilities read by the langsmith clients',
        response: {
          200: {
            type: 'object',
            properties: {
              version: { type: 'string' },
              license_expiration_time: { type: 'string', nullable: true },
              batch_ingest_config: { type: 'object', additionalProperties: true },
              instance_flags: { type: 'object', additionalProperties: true },
            },
          },
        },
      },
    },
    async () => ({
      version: SERVICE_VERSION,
      license_expiration_time: null,
      // All six keys: the Python client indexes them directly.
      batch_ingest_config: {
        use_multipart_endpoint: true,
        size_limit: config.INGEST_SIZE_LIMIT_OPS,
        size_limit_bytes: config.INGEST_SIZE_LIMIT_BYTES,
        scale_up_qsize_trigger: 1000,
        scale_up_nthreads_limit: 16,
        scale_down_nempty_trigger: 4,
      },
      instance_flags: {
        zstd_compression_enabled: true,
        gzip_body_enabled: true,
        ch_query_enabled: true,
        sdb_query_enabled: false,
        dataset_examples_multipart_enabled: true,
        examples_multipart_enabled: false,
      },
    }),
  );
}
