// How an export worker process is started (services/main.ts, and the export benchmark, which
// measures what the product runs). Kept apart from the worker so the launcher loads nothing heavy.
/**
 * Environment of an export worker process, over the launcher's own (`inherited`):
 * - MALLOC_ARENA_MAX: glibc gives each thread that allocates (the S3 SDK's sockets, zlib, the
 *   libuv pool, the Parquet encoder thread) a malloc arena of its own; two keep peak RSS ~20 MB
 *   lower (npm run bench:export) at no cost in speed.
 * - --max-semi-space-size=4 (MiB, in NODE_OPTIONS, after the inherited ones): V8 grows the young
 *   generation to 3 × 16 MiB or more under the export's churn of short-lived buffers; this keeps
 *   the main thread's heap ~50 MB smaller, and that thread has time to spare for the extra
 *   scavenges (the encoder thread is the busy one).
 */
export function exportWorkerProcessEnv(inherited: { NODE_OPTIONS?: string | undefined }): Record<string, string> {
  return { MALLOC_ARENA_MAX: '2', NODE_OPTIONS: [inherited.NODE_OPTIONS, '--max-semi-space-size=4'].filter(Boolean).join(' ') };
}
