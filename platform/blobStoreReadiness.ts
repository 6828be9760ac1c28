// Whether object storage has answered since this process started, for the routes that need it (bulk export, the
// control plane's source uploads and revision logs): until it has, they answer 503 STORAGE_UNAVAILABLE with
// Retry-After and a message naming what waits (errors.storageNotReady) instead of failing halfway or with a
// misleading 4xx. A first `npm start` serves tracing while it still builds the local MinIO (services/main.ts); a
// store that is only slow to start is the same case. Asked per request, not polled: nothing runs while nobody
// asks, and the first request after the store is up (its bucket made) opens the gate for good. Later outages are
// each operation's own STORAGE_UNAVAILABLE.
import type { FastifyInstance } from 'fastify';
import type { BlobStore } from './blobStore.ts';
import { errors } from './errors.ts';

/** Resolves once the store has answered (its bucket exists); otherwise rejects with errors.storageNotReady. */
export type BlobStoreReadiness = () => Promise<void>;

/** `needs` names what waits for the store in the 503's message ("bulk export"). */
export function blobStoreReadiness(
  blobs: Pick<BlobStore, 'ensureBucket' | 'endpoint'>,
  needs: string,
): BlobStoreReadiness {
  let ready: Promise<void> | null = null;
  return () =>
    (ready ??= blobs.ensureBucket().catch((err: Error & { code?: string }) => {
      ready = null;
      throw errors.storageNotReady(needs, blobs.endpoint, err.message || err.code || err.name, err);
    }));
}

/** Every route of `scope` waits for the store: once authentication and validation passed, before its handler. */
export function requireBlobStore(scope: FastifyInstance, ready: BlobStoreReadiness): void {
  scope.addHook('preHandler', async () => {
    await ready();
  });
}
