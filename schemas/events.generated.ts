// Generated from schemas/**/*.avsc by schemas/generateTypes.ts. Do not edit.

/** An API key. Only its SHA-256 hash is ever stored; the key itself is shown once by whoever issued it. */
export interface ApiKeyIssued {
  /** hex SHA-256 of the key */
  key_hash: string;
  /** first characters of the key, to recognise it in listings */
  key_prefix: string;
  description: string;
  created_at: number;
}

/** Gives an API key access to a workspace. A key linked to several workspaces must name one in X-Tenant-Id. */
export interface ApiKeyLinked {
  key_hash: string;
  workspace_id: string;
  created_at: number;
}

export interface Attachment {
  name: string;
  blob: BlobRef;
}

/** claim check: the JSON lives in object storage */
export interface BlobRef {
  bucket: string;
  key: string;
  size: number;
  content_type: string;
}

/** Feedback on a run, from a multipart feedback.<id> part. */
export interface FeedbackSubmitted {
  tenant_id: string;
  feedback_id: string;
  run_id: null | string;
  trace_id: null | string;
  key: string;
  score: null | number;
  /** JSON */
  value: null | string;
  comment: null | string;
  /** JSON */
  correction: null | string;
  /** JSON */
  feedback_source: null | string;
  session_id: null | string;
  /** microseconds since the epoch */
  created_at: number;
  received_at: number;
}

/** A tracing project (session). Keyed tenant_id/project_id. Ids of projects created by name are uuid5 of (tenant, name, generation), so concurrent creations by several API replicas agree; a repeated creation of a live id only fills what is still empty. v2 adds the reference dataset and the project's own start and end times. */
export interface ProjectCreated {
  tenant_id: string;
  project_id: string;
  name: string;
  description: null | string;
  /** JSON object */
  extra: null | string;
  /** microseconds since the epoch */
  created_at: number;
  /** the dataset an experiment project ran against */
  reference_dataset_id: null | string;
  /** microseconds since the epoch; null means created_at */
  start_time: null | number;
  /** microseconds since the epoch */
  end_time: null | number;
}

/** Tombstone of a project (DELETE /sessions/{id}). Keyed tenant_id/project_id. Final: the id is never live again; its runs are skipped and removed from the read models, and its name is free for a new project (with a new id). */
export interface ProjectDeleted {
  tenant_id: string;
  project_id: string;
  /** microseconds since the epoch */
  deleted_at: number;
}

/** A change to a project (PATCH /sessions/{id}, or POST /sessions?upsert=true of an existing name). Keyed tenant_id/project_id. A null field is left unchanged. A rename to a name another live project holds is ignored as a whole when folded. */
export interface ProjectUpdated {
  tenant_id: string;
  project_id: string;
  name: null | string;
  description: null | string;
  /** JSON object, replaces the whole extra */
  extra: null | string;
  /** microseconds since the epoch */
  end_time: null | number;
  /** microseconds since the epoch */
  updated_at: number;
}

/** Where a run created through POST /runs sits in its trace, so any API replica can place its children and route its patches before the projector has caught up. */
export interface RunLineageRecorded {
  tenant_id: string;
  run_id: string;
  trace_id: string;
  dotted_order: string;
  session_id: string;
}

export interface RunOp {
  op: RunOpKind;
  run_id: string;
  /** project id, resolved by the API; set on posts */
  session_id: null | string;
  parent_run_id: null | string;
  dotted_order: null | string;
  name: null | string;
  run_type: null | string;
  /** microseconds since the epoch, UTC */
  start_time: null | number;
  end_time: null | number;
  /** JSON text, or a pointer when large */
  inputs: null | string | BlobRef;
  outputs: null | string | BlobRef;
  events: null | string | BlobRef;
  extra: null | string | BlobRef;
  serialized: null | string | BlobRef;
  error: null | string;
  tags: null | string[];
  reference_example_id: null | string;
  attachments: Attachment[];
}

export type RunOpKind = 'post' | 'patch';

/** Run operations (creates and updates) of one trace accepted in one request. Keyed by tenant_id/trace_id so a trace stays in one partition, in order. */
export interface RunOpsAppended {
  tenant_id: string;
  trace_id: string;
  /** id of the HTTP request that appended this event */
  request_id: string;
  /** microseconds since the epoch, when the API accepted the request */
  received_at: number;
  ops: RunOp[];
}

export interface WorkspaceCreated {
  workspace_id: string;
  name: string;
  created_at: number;
}

export interface EventPayloads {
  ApiKeyIssued: ApiKeyIssued;
  ApiKeyLinked: ApiKeyLinked;
  FeedbackSubmitted: FeedbackSubmitted;
  ProjectCreated: ProjectCreated;
  ProjectDeleted: ProjectDeleted;
  ProjectUpdated: ProjectUpdated;
  RunLineageRecorded: RunLineageRecorded;
  RunOpsAppended: RunOpsAppended;
  WorkspaceCreated: WorkspaceCreated;
}
