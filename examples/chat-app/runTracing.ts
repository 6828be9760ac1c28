// Tracing a turn on behalf of its caller. The app sends the platform's tracing API what a run
// does, and it sends it as the person who asked: with the caller's own API key, into the caller's
// workspace (X-Tenant-Id), project LANGSMITH_PROJECT. One workspace's conversations never land in
// another's, and the app needs no key of its own (only with CHAT_APP_AUTH=none, where callers have
// none, does LANGSMITH_API_KEY stand in). The key is held for the run and its upload, never stored.
// LangChain's own tracer, which reads LANGSMITH_* from the environment, stays off (./main.ts).
import type { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { LangChainTracer } from '@langchain/core/tracers/tracer_langchain';
import { Client } from 'langsmith';

/** Where runs are traced: the tracing API and the project (made on first use, in each workspace). */
export interface TraceDestination {
  endpoint: string;
  project: string;
}

/** Whose the run is: the key it was started with, and the workspace that key acts in. */
export interface TraceCredentials {
  apiKey: string;
  /** Sent as X-Tenant-Id; absent for LANGSMITH_API_KEY, whose workspace the key decides. */
  workspaceId?: string;
}

export interface RunTracer {
  callbacks: BaseCallbackHandler[];
  /** Resolves once everything traced has been sent. */
  flush(): Promise<void>;
}

export function runTracer(destination: TraceDestination, credentials: TraceCredentials): RunTracer {
  const client = new Client({
    apiUrl: destination.endpoint,
    apiKey: credentials.apiKey,
    workspaceId: credentials.workspaceId,
  });
  return {
    callbacks: [new LangChainTracer({ projectName: destination.project, client })],
    flush: () => client.awaitPendingTraceBatches(),
  };
}
