// A run as the `runs` read model stores it (the row every writer fed by the runs topic is given:
// the traces and threads rows are computed from the runs of their trace), and the version of an
// operation. The merge of operations into it is the runs model's (runs/runRow.ts).
import type { Usage } from './usage.ts';

export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** Usage columns (Usage): this run's and all its descendants' (own usage from outputs.usage_metadata and the like). */
export interface RunRow extends Usage {
  tenant_id: string;
  trace_id: string;
  id: string;
  session_id: string;
  parent_run_id: string | null;
  dotted_order: string;
  name: string;
  run_type: string;
  status: string;
  start_time: number;
  end_time: number | null;
  inputs: string;
  outputs: string;
  events: string;
  extra: string;
  serialized: string;
  /** JSON object: field name -> BlobRef, for payloads kept in object storage. */
  payload_refs: string;
  error: string | null;
  tags: string[];
  reference_example_id: string | null;
  /** JSON array of {name, blob}. */
  attachments: string;
  /** Derived: extra.metadata.thread_id, else session_id, else conversation_id; '' when none. */
  thread_id: string;
  /** Derived: the top-level keys of extra.metadata and their values (strings as they are, others as JSON). */
  metadata_keys: string[];
  metadata_values: string[];
  /** Derived: this run's own usage as JSON (see usage.ts `Usage`), '' when none. */
  usage: string;
  /** Derived: time of the first `new_token` event, microseconds. */
  first_token_time: number | null;
  is_root: number;
  has_post: number;
  received_at: number;
  version: number;
}

export const PAYLOAD_FIELDS = ['inputs', 'outputs', 'events', 'extra', 'serialized'] as const;

/** Ops of one Kafka message share its offset; the op index keeps them ordered. Never 0: 0 is "nothing applied". */
export const opVersion = (offset: bigint | number, index: number): number => Number(offset) * 65536 + index + 1;
