// How an export worker process is started (services/main.ts, and the export benchmark, which
// measures what the product runs). Kept apart from the worker so the launcher loads nothing heavy.
/**
 * Environment of an export worker process, over the launcher's own (`inherited`):
 * - MALLOC_ARENA_MAX: glibc gives each thread that allocates (the S3 SDK's sockets, zlib, the
 *   libuv pool, the Parquet encoder thread) a malloc arena of its own; two keep peak RSS ~20 MB
 *   lower (npm run bench:export) at no cost in speed.
 * - MALLOC_MMAP_THRESHOLD_: glibc serves allocations of 128 KiB or more (the export's batches,
 *   Arrow and Parquet buffers of a few MiB) with mmap and returns them at free. By default it
 *   raises that threshold to the largest block freed (up to 32 MiB), after which such buffers
 *   come from the arenas and their freed memory stays in the process: uncompressed exports of
 *   3M runs peaked at 304–316 MB, now 280–285 MB, 7 % slower (fresh pages are faulted in for each
 *   buffer); gzip 287–289 → 273–274 MB at the same speed (npm run bench:export, BENCH_RUNS=3000000).
 * - --max-semi-space-size=4 (MiB, in NODE_OPTIONS, after the inherited ones): V8 grows the young
 *   generation to 3 × 16 MiB or more under the export's churn of short-lived buffers; this keeps
 *   the main thread's heap ~50 MB smaller, and that thread has time to spare for the extra
 *   scavenges (the encoder thread is the busy one).
 */
export function exportWorkerProcessEnv(inherited: { NODE_OPTIONS?: string | undefined }): Record<string, string> {
  return {
    MALLOC_ARENA_MAX: '2',
    MALLOC_MMAP_THRESHOLD_: '131072',
    NODE_OPTIONS: [inherited.NODE_OPTIONS, '--max-semi-space-size=4'].filter(Boolean).join(' '),
  };
}
