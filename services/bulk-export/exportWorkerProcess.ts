// How an export worker process is started (services/main.ts, and the export benchmark, which
// measures what the product runs). Kept apart from the worker so the launcher loads nothing heavy.
/**
 * Environment of an export worker process: glibc gives each thread that allocates (the S3 SDK's
 * sockets, zlib, the libuv pool) a malloc arena of its own; two keep peak RSS ~20 MB lower
 * (npm run bench:export) at no cost in speed.
 */
export const EXPORT_WORKER_PROCESS_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };
