// The `feedback_tokens` read model: one row per presigned feedback token (FeedbackTokenCreated),
// read by id alone when a token is used (the request names no workspace: the token does). A token
// never changes, so a row is written once; a replayed event writes the same row again.
import { ident, raw, type Sql } from '../../platform/clickhouse/sql.ts';
import { rowBinaryColumns } from '../../platform/clickhouse/rowBinary.ts';
import type { FeedbackTokenCreated } from '../../schemas/events.generated.ts';

export const FEEDBACK_TOKENS_TABLE = 'feedback_tokens';

export function createFeedbackTokensTable(table: string = FEEDBACK_TOKENS_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (
  id UUID,
  tenant_id UUID,
  run_id UUID,
  feedback_key String,
  feedback_id Nullable(UUID),
  feedback_config String,
  expires_at Int64,
  created_at Int64,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY id`);
}

/** How the feedback projector's inserts encode a row (RowBinary, from the DDL above). */
export const FEEDBACK_TOKEN_COLUMNS = rowBinaryColumns(createFeedbackTokensTable());

/** A row of `feedback_tokens`. feedback_config is JSON text, '' when absent; times are microseconds. */
export interface FeedbackTokenRow {
  id: string;
  tenant_id: string;
  run_id: string;
  feedback_key: string;
  feedback_id: string | null;
  feedback_config: string;
  expires_at: number;
  created_at: number;
  version: number;
}

export const feedbackTokenRow = (t: FeedbackTokenCreated, version: number): FeedbackTokenRow => ({
  id: t.token_id,
  tenant_id: t.tenant_id,
  run_id: t.run_id,
  feedback_key: t.feedback_key,
  feedback_id: t.feedback_id,
  feedback_config: t.feedback_config ?? '',
  expires_at: t.expires_at,
  created_at: t.created_at,
  version,
});
