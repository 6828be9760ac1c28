// `feedback_keys` of a run: for each key, a presigned feedback token on the run's trace, made by
// the tracing API the server traces its runs into (`POST /feedback/tokens`, through the langsmith
// client as LangGraph's server calls it: createPresignedFeedbackToken). The run sends them as its
// `feedback` stream event, `{key: url}`, once its graph is done: a POST (or a GET with `?score=…`)
// to a URL records that key's feedback on the run, with no API key, until the token expires.
// The trace's root run has the run's id (runManager.ts), so the token names the run id.
import { Client } from 'langsmith';
import { tracingEnabled } from '../routes/metaRoutes.ts';

export interface FeedbackTokens {
  /** A token URL per key, on the trace of run `runId`. */
  urls(runId: string, keys: string[]): Promise<Record<string, string>>;
}

/** Tokens from the tracing API that LANGSMITH_* names; undefined when this server does not trace its runs. */
export function tracingFeedbackTokens(env: NodeJS.ProcessEnv = process.env): FeedbackTokens | undefined {
  if (!tracingEnabled(env)) return undefined;
  let client: Client | undefined;
  return {
    async urls(runId, keys) {
      client ??= new Client();
      const tokens = await Promise.all(
        keys.map(async (key) => [key, (await client!.createPresignedFeedbackToken(runId, key)).url] as const),
      );
      return Object.fromEntries(tokens);
    },
  };
}
