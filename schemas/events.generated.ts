// Generated from schemas/**/*.avsc by schemas/generateTypes.ts. Do not edit.

/** An annotation queue (POST /annotation-queues): runs people review, with the rubric they score them by. Keyed tenant_id/queue_id. A creation of an id already used in the workspace is ignored. */
export interface AnnotationQueueCreated {
  tenant_id: string;
  queue_id: string;
  name: string;
  description: null | string;
  rubric_instructions: null | string;
  /** JSON array of {feedback_key, description, value_descriptions, score_descriptions, is_required, ...} */
  rubric_items: null | string;
  /** the dataset runs of the queue are added to from the reviewer's page */
  default_dataset: null | string;
  num_reviewers_per_item: number;
  /** JSON object */
  metadata: null | string;
  /** microseconds since the epoch */
  created_at: number;
}

/** An annotation queue deleted (DELETE /annotation-queues/{id}), with its runs; feedback written from it stays on the runs. Keyed tenant_id/queue_id. */
export interface AnnotationQueueDeleted {
  tenant_id: string;
  queue_id: string;
  /** microseconds since the epoch */
  deleted_at: number;
}

export interface AnnotationQueueRun {
  /** the item's id */
  queue_run_id: string;
  run_id: string;
  session_id: null | string;
  /** microseconds since the epoch */
  start_time: null | number;
}

/** A reviewer's mark on an item of a queue (POST /annotation-queues/status/{queue_run_id}, the reviewer's page): `completed` (done: it leaves the reviewer's to-do once, and the queue's once num_reviewers_per_item reviewers have completed it) or `viewed`. The reviewer is the API key (its hash). Keyed tenant_id/queue_id. Ignored for an item no longer in the queue. */
export interface AnnotationQueueRunReviewed {
  tenant_id: string;
  queue_id: string;
  queue_run_id: string;
  /** the reviewer's API key hash */
  reviewer: string;
  /** completed or viewed */
  status: string;
  /** microseconds since the epoch */
  reviewed_at: number;
}

/** Runs added to an annotation queue (POST /annotation-queues/{id}/runs, /runs/by-key, the explorer's 'send to annotation queue'): each an item of the queue, in order of adding. A run already in the queue is not added again. Keyed tenant_id/queue_id. Ignored for a queue that is not live. */
export interface AnnotationQueueRunsAdded {
  tenant_id: string;
  queue_id: string;
  runs: AnnotationQueueRun[];
  /** microseconds since the epoch */
  added_at: number;
}

/** Items taken out of an annotation queue (DELETE /annotation-queues/{id}/runs/{id}). Keyed tenant_id/queue_id. */
export interface AnnotationQueueRunsRemoved {
  tenant_id: string;
  queue_id: string;
  queue_run_ids: string[];
  /** microseconds since the epoch */
  removed_at: number;
}

/** A change to an annotation queue (PATCH /annotation-queues/{id}): the fields named in `fields` take the values given (null clears a nullable one). Keyed tenant_id/queue_id. Ignored for a queue that is not live. */
export interface AnnotationQueueUpdated {
  tenant_id: string;
  queue_id: string;
  /** of name, description, rubric_instructions, rubric_items, default_dataset, num_reviewers_per_item, metadata */
  fields: string[];
  name: null | string;
  description: null | string;
  rubric_instructions: null | string;
  /** JSON array */
  rubric_items: null | string;
  default_dataset: null | string;
  num_reviewers_per_item: null | number;
  /** JSON object */
  metadata: null | string;
  /** microseconds since the epoch */
  updated_at: number;
}

/** An API key. Only its SHA-256 hash is ever stored; the key itself is shown once by whoever issued it. v2 names the deployment revision a key was issued to (the key its agent server traces and verifies callers with), so the control plane can revoke it with the revision even after a restart. */
export interface ApiKeyIssued {
  /** hex SHA-256 of the key */
  key_hash: string;
  /** first characters of the key, to recognise it in listings */
  key_prefix: string;
  description: string;
  created_at: number;
  /** the deployment whose revision holds this key; null for a key issued to a person or a client */
  deployment_id: null | string;
  /** the revision whose agent server holds this key */
  revision_id: null | string;
}

/** Gives an API key access to a workspace. A key linked to several workspaces must name one in X-Tenant-Id. */
export interface ApiKeyLinked {
  key_hash: string;
  workspace_id: string;
  created_at: number;
}

/** Takes a workspace away from an API key: the key, and every bearer token issued with it for that workspace, stop acting there. A key left with no workspace is refused everywhere. */
export interface ApiKeyUnlinked {
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

/** A comparison of two or more experiments of one dataset (POST /datasets/comparative, made by evaluateComparative / evaluate_comparative): pairwise feedback names it as comparative_experiment_id. Keyed tenant_id/dataset_id. Ignored for a dataset that is not live, and for an id already used. */
export interface ComparativeExperimentCreated {
  tenant_id: string;
  dataset_id: string;
  comparative_experiment_id: string;
  name: string;
  description: null | string;
  /** the projects compared, in order */
  experiment_ids: string[];
  /** JSON object */
  extra: null | string;
  /** microseconds since the epoch */
  created_at: number;
}

/** A dataset (POST /datasets, or POST /datasets/upload). Keyed tenant_id/dataset_id. A name belongs to the first live dataset of the workspace created with it: a creation whose name a live dataset holds, folded after it, is ignored (the command that appended it answers 409). A creation of an id already created or deleted is ignored. */
export interface DatasetCreated {
  tenant_id: string;
  dataset_id: string;
  name: string;
  description: null | string;
  /** kv, llm or chat */
  data_type: string;
  /** JSON object; extra.metadata is the dataset's metadata */
  extra: null | string;
  /** JSON Schema every example's inputs must satisfy */
  inputs_schema: null | string;
  /** JSON Schema every example's outputs must satisfy */
  outputs_schema: null | string;
  /** JSON array of {path, transformation_type} */
  transformations: null | string;
  /** microseconds since the epoch */
  created_at: number;
}

/** Tombstone of a dataset (DELETE /datasets/{id}). Keyed tenant_id/dataset_id. Final: the id is never live again, and its name is free for a new dataset. */
export interface DatasetDeleted {
  tenant_id: string;
  dataset_id: string;
  /** microseconds since the epoch */
  deleted_at: number;
}

/** A tag put on a version of a dataset (PUT /datasets/{id}/tags): from now on `as_of=<tag>` reads the dataset as it was at as_of. A tag names one version at a time: tagging another version moves it. Keyed tenant_id/dataset_id. Ignored for a dataset that is not live. */
export interface DatasetTagged {
  tenant_id: string;
  dataset_id: string;
  tag: string;
  /** microseconds since the epoch: the version tagged */
  as_of: number;
  /** microseconds since the epoch */
  tagged_at: number;
}

/** A change to a dataset (PATCH /datasets/{id}). Keyed tenant_id/dataset_id. A null field is left unchanged; a rename to a name another live dataset holds is ignored as a whole when folded (the command answers 409). */
export interface DatasetUpdated {
  tenant_id: string;
  dataset_id: string;
  name: null | string;
  description: null | string;
  /** JSON object, replaces the whole extra */
  extra: null | string;
  /** JSON Schema, replaces the one before */
  inputs_schema: null | string;
  /** JSON Schema, replaces the one before */
  outputs_schema: null | string;
  /** microseconds since the epoch */
  updated_at: number;
}

/** POST /v2/deployments. Keyed tenant_id/deployment_id; appended with its first RevisionCreated. Ignored by the fold when an active deployment of the workspace already has the name (the command then answers 409). */
export interface DeploymentCreated {
  tenant_id: string;
  deployment_id: string;
  name: string;
  /** github, external_docker, internal_docker, internal_source or internal_template; fixed at creation */
  source: string;
  /** the SourceConfig object, as JSON */
  source_config: string;
  /** microseconds since the epoch */
  created_at: number;
}

/** DELETE ?force=true on an AWAITING_DELETE deployment: its control-plane record is gone (cluster cleanup skipped). Ignored unless the deployment is AWAITING_DELETE where it lands; the first of racing removals wins (removal_id says whose). */
export interface DeploymentRemoved {
  tenant_id: string;
  deployment_id: string;
  /** unique per DELETE request: the command reads back whether its removal took effect */
  removal_id: string;
  /** microseconds since the epoch */
  removed_at: number;
}

/** DELETE /v2/deployments/{id} without force: the deployment is AWAITING_DELETE until its runtime is torn down. Later revisions and updates of it are ignored. */
export interface DeploymentSoftDeleted {
  tenant_id: string;
  deployment_id: string;
  /** the caller asked for the deployment's tracing project to be deleted too */
  delete_tracing_project: boolean;
  /** microseconds since the epoch */
  deleted_at: number;
}

/** The deployer's report on the deployment's runtime: AWAITING_DATABASE, READY, UNUSED or UNKNOWN (AWAITING_DELETE comes only from DeploymentSoftDeleted). Ignored once the deployment is AWAITING_DELETE. */
export interface DeploymentStatusChanged {
  tenant_id: string;
  deployment_id: string;
  status: string;
  /** microseconds since the epoch */
  changed_at: number;
}

/** The tracing project of a deployment soft-deleted with delete_tracing_project was deleted (a ProjectDeleted on the tracing context's projects topic), after its servers stopped. Recorded once, so the deletion is not done again (a project made later under the same name stays). Ignored unless the deployment is AWAITING_DELETE where it lands. */
export interface DeploymentTracingProjectDeleted {
  tenant_id: string;
  deployment_id: string;
  /** the project deleted; null when the workspace had no project of the deployment's name */
  project_id: null | string;
  /** microseconds since the epoch */
  deleted_at: number;
}

/** A PATCH's source_config fields (those that make no revision), or the deployer's custom_url. Merged into the deployment's source_config by the fold; ignored unless the deployment is active. */
export interface DeploymentUpdated {
  tenant_id: string;
  deployment_id: string;
  /** the SourceConfig fields to set, as a JSON object */
  source_config_changes: string;
  /** microseconds since the epoch */
  updated_at: number;
}

/** A bulk-export destination, created after its test write succeeded (POST /bulk-exports/destinations). Keyed tenant_id/destination_id. */
export interface DestinationCreated {
  tenant_id: string;
  destination_id: string;
  /** s3 */
  destination_type: string;
  display_name: string;
  bucket_name: string;
  /** normalised: no leading or trailing slash */
  prefix: string;
  endpoint_url: null | string;
  region: null | string;
  /** the credentials object, sealed by SecretBox (AES-256-GCM); never plain text */
  credentials: string;
  /** names of the credential fields given, shown instead of the values */
  credentials_keys: string[];
  /** microseconds since the epoch */
  created_at: number;
}

/** New credentials for a destination, after their test write succeeded (PATCH /bulk-exports/destinations/{id}). Export runs that start after it use them; runs already running keep the keys they started with. */
export interface DestinationCredentialsRotated {
  tenant_id: string;
  destination_id: string;
  /** sealed by SecretBox */
  credentials: string;
  credentials_keys: string[];
  /** microseconds since the epoch */
  rotated_at: number;
}

/** A file of the example, in object storage */
export interface ExampleAttachment {
  name: string;
  bucket: string;
  key: string;
  size: number;
  content_type: string;
}

/** An example added to a dataset (POST /v1/platform/datasets/{id}/examples, POST /examples, POST /examples/bulk, a CSV upload, runs added to a dataset). Keyed tenant_id/dataset_id, so a dataset's examples stay in order in one partition. Every example of one write carries the same modified_at: that write is one version of the dataset, read back with as_of. A creation of an example id that is live is ignored. */
export interface ExampleCreated {
  tenant_id: string;
  dataset_id: string;
  example_id: string;
  /** JSON object */
  inputs: string;
  /** JSON object: the reference outputs */
  outputs: null | string;
  /** JSON object, without dataset_split (the splits field holds it) */
  metadata: null | string;
  /** the example's splits (base when none was named) */
  splits: string[];
  /** the run the example was made from */
  source_run_id: null | string;
  attachments: ExampleAttachment[];
  /** microseconds since the epoch (the client's, when it sent one) */
  created_at: number;
  /** microseconds since the epoch: the version this write made */
  modified_at: number;
}

/** An example removed from its dataset (DELETE /examples/{id}, DELETE /examples, POST /v1/platform/datasets/examples/delete): from modified_at on, versions of the dataset do not hold it; the ones before still do, unless the deletion is hard, which takes it out of every version of the read model. Keyed tenant_id/dataset_id. A soft deletion of an example that is not live is ignored. */
export interface ExampleDeleted {
  tenant_id: string;
  dataset_id: string;
  example_id: string;
  /** microseconds since the epoch: the version this write made */
  modified_at: number;
  /** taken out of every version, not only the versions from now on */
  hard: boolean;
}

/** A change to an example (PATCH /v1/platform/datasets/{id}/examples, PATCH /examples/{id}, PATCH /examples/bulk, split changes): a new version of it, made from its newest version before this event by replacing the fields named in `fields`. Attachments: those of the example named in attachments_retain (all of them when null) are kept, renamed by attachments_rename, and attachments_added are added (replacing any of the same name). Keyed tenant_id/dataset_id. Ignored for an example that is not live. */
export interface ExampleUpdated {
  tenant_id: string;
  dataset_id: string;
  example_id: string;
  /** of inputs, outputs, metadata, splits */
  fields: string[];
  /** JSON object */
  inputs: null | string;
  /** JSON object; null (when named) clears them */
  outputs: null | string;
  /** JSON object, without dataset_split */
  metadata: null | string;
  splits: string[];
  /** names of the attachments kept; null keeps them all */
  attachments_retain: null | string[];
  /** JSON object: old name to new name */
  attachments_rename: null | string;
  attachments_added: ExampleAttachment[];
  /** microseconds since the epoch: the version this write made */
  modified_at: number;
}

/** PATCH /bulk-exports/{id} with status Cancelled. Final. Runs not finished are cancelled (work in flight stops); finished runs stay as they are. */
export interface ExportCancelled {
  tenant_id: string;
  export_id: string;
  /** microseconds since the epoch */
  cancelled_at: number;
}

/** A bulk export (POST /bulk-exports). Of runs (a project's, in a time range): one-time when end_time is set, scheduled every interval_hours otherwise. Of examples (v2): a dataset's examples at one version, as_of, pinned when the export was created; one-time. Keyed tenant_id/export_id. v1 events read as runs exports. */
export interface ExportCreated {
  tenant_id: string;
  export_id: string;
  destination_id: string;
  /** runs or examples */
  resource: string;
  /** runs: the project exported; null for examples */
  session_id: null | string;
  /** examples: the dataset exported; null for runs */
  dataset_id: null | string;
  /** examples: the version read, microseconds since the epoch (a version's time, or the time asked when the dataset had none by then); null for runs */
  as_of: null | number;
  /** runs: microseconds since the epoch, inclusive; null for examples */
  start_time: null | number;
  /** runs: microseconds since the epoch, exclusive; null for a scheduled export, and for examples */
  end_time: null | number;
  interval_hours: null | number;
  /** Parquet */
  format: string;
  /** v1 or v2_beta */
  format_version: string;
  /** none, gzip, snappy or zstandard */
  compression: string;
  export_fields: null | string[];
  /** runs: a condition on each run, in the runs filter language; applied to each run's final state */
  filter: null | string;
  /** microseconds since the epoch */
  created_at: number;
}

/** A file of an export run is about to be completed (its last rows are written; its upload is being finished). If the attempt ends before the matching ExportRunProgressed, the next attempt looks for the object: when it exists, it is recorded as written and the export resumes after its cursor, so the file is neither lost nor written twice. */
export interface ExportRunFilePending {
  tenant_id: string;
  export_id: string;
  run_id: string;
  attempt: number;
  worker_id: string;
  /** object key */
  file: string;
  file_rows: number;
  /** start_time (microseconds) of the file's last row */
  cursor_start_time: number;
  /** id of the file's last row */
  cursor_id: string;
  /** microseconds since the epoch */
  recorded_at: number;
}

/** The end of an attempt of an export run. Failed with retry_at set: the run is retried (attempt + 1) at that time; Failed without it: retries are used up. Ignored when folded unless it is for the run's current attempt. */
export interface ExportRunFinished {
  tenant_id: string;
  export_id: string;
  run_id: string;
  attempt: number;
  status: ExportRunOutcome;
  error: null | string;
  /** microseconds since the epoch */
  retry_at: null | number;
  /** microseconds since the epoch */
  finished_at: number;
}

export type ExportRunOutcome = 'Completed' | 'Failed' | 'Cancelled' | 'TimedOut';

/** A completed file of an export run (or a heartbeat, with no new file). Totals are cumulative over the run's attempts; a retry resumes after latest_cursor. */
export interface ExportRunProgressed {
  tenant_id: string;
  export_id: string;
  run_id: string;
  attempt: number;
  worker_id: string;
  /** object key of the file completed, null for a heartbeat */
  file: null | string;
  file_rows: number;
  file_bytes: number;
  /** start_time (microseconds) of the file's last row */
  cursor_start_time: null | number;
  /** id of the file's last row */
  cursor_id: null | string;
  /** microseconds since the epoch */
  recorded_at: number;
}

/** An export run: the export's runs with start_time in [start_time, end_time), never across a UTC midnight. run_id is derived from the export and the range, so schedulers on several replicas, or after a restart, append the same id and the fold keeps the first. */
export interface ExportRunScheduled {
  tenant_id: string;
  export_id: string;
  run_id: string;
  /** microseconds since the epoch, inclusive */
  start_time: number;
  /** microseconds since the epoch, exclusive */
  end_time: number;
  /** microseconds since the epoch */
  scheduled_at: number;
}

/** A worker claims attempt `attempt` of an export run. The first claim of an attempt in topic order wins; others are ignored when folded, and their workers stand down. */
export interface ExportRunStarted {
  tenant_id: string;
  export_id: string;
  run_id: string;
  /** 0 first, n the n-th retry */
  attempt: number;
  worker_id: string;
  /** microseconds since the epoch */
  started_at: number;
}

/** A feedback key's config (POST /feedback-configs): what feedback under the key holds (continuous in a range, one of categories, free text). Keyed tenant_id/feedback_key. A key has one config, or with an enforced one several: a creation the key's live configs rule out when folded (a second enforced config, a second config of a key without an enforced one, an identical one) is ignored, and the command reads that back. */
export interface FeedbackConfigCreated {
  tenant_id: string;
  config_id: string;
  feedback_key: string;
  /** JSON object: {type, min, max, categories, allows_multiple_categories} */
  feedback_config: string;
  is_enforced: boolean;
  /** the key's direction, shared by its configs; null leaves it as it is */
  is_lower_score_better: null | boolean;
  /** microseconds since the epoch */
  created_at: number;
}

/** A feedback config deleted (DELETE /feedback-configs). Keyed tenant_id/feedback_key. Kept as deleted (lists with include_all_configs show it); feedback already written under the key is unchanged. */
export interface FeedbackConfigDeleted {
  tenant_id: string;
  config_id: string;
  feedback_key: string;
  /** microseconds since the epoch */
  deleted_at: number;
}

/** A change to a feedback config (PATCH /feedback-configs). Keyed tenant_id/feedback_key. A null field is left unchanged; the config is replaced whole. */
export interface FeedbackConfigUpdated {
  tenant_id: string;
  config_id: string;
  feedback_key: string;
  /** JSON object, the whole new config */
  feedback_config: null | string;
  /** the key's direction */
  is_lower_score_better: null | boolean;
  /** microseconds since the epoch */
  updated_at: number;
}

/** A feedback item deleted (DELETE /feedback/{id}). Keyed tenant_id/feedback_id. run_id is the item's (the zero UUID for feedback on a project). It leaves the reads and the feedback stats; a later submission of the same id brings it back. */
export interface FeedbackDeleted {
  tenant_id: string;
  feedback_id: string;
  run_id: string;
  /** microseconds since the epoch */
  deleted_at: number;
}

/** Feedback on a run (or, without a run, on a project), from a multipart feedback.<id> part or POST /feedback. A submission replaces a feedback item of the same id whole. Keyed tenant_id/feedback_id, so every event of one feedback item is in one partition, in order (v1 events were keyed by trace). v2 adds the experiment, group, config and extra of the clients' FeedbackCreate. */
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
  comparative_experiment_id: null | string;
  feedback_group_id: null | string;
  /** JSON object: how to read the key's scores (continuous, categorical, freeform) */
  feedback_config: null | string;
  /** JSON object */
  extra: null | string;
}

/** A presigned feedback token (POST /feedback/tokens, the clients' createPresignedFeedbackToken): until expires_at, a request to /feedback/tokens/{token_id}, with no API key, records feedback of feedback_key on run_id in the tenant's workspace. Keyed tenant_id/token/token_id. A token is never changed: using it submits feedback (FeedbackSubmitted). */
export interface FeedbackTokenCreated {
  tenant_id: string;
  token_id: string;
  run_id: string;
  feedback_key: string;
  /** the feedback item each use writes (replacing the last); a new item per use when null */
  feedback_id: null | string;
  /** JSON object: how to read the key's scores */
  feedback_config: null | string;
  /** microseconds since the epoch */
  expires_at: number;
  /** microseconds since the epoch */
  created_at: number;
}

/** A change to a feedback item (PATCH /feedback/{id}). Keyed tenant_id/feedback_id. Only the fields named in `fields` change; a named field whose value is null is cleared. run_id is the item's (the zero UUID for feedback on a project), so the projector finds its row by key. */
export interface FeedbackUpdated {
  tenant_id: string;
  feedback_id: string;
  run_id: string;
  /** of score, value, comment, correction, feedback_config */
  fields: string[];
  score: null | number;
  /** JSON */
  value: null | string;
  comment: null | string;
  /** JSON */
  correction: null | string;
  /** JSON object */
  feedback_config: null | string;
  /** microseconds since the epoch */
  modified_at: number;
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

/** A version of a prompt (POST /commits/{owner}/{name}): its manifest (a LangChain serialized object), on top of its parent. Keyed tenant_id/prompt_id. Ignored unless the parent is the prompt's latest commit when folded (none for the first), and for a prompt that is not live: two commits racing on one parent give one commit. */
export interface PromptCommitted {
  tenant_id: string;
  prompt_id: string;
  commit_id: string;
  /** sha256 of the parent's hash and the manifest's JSON, hex, its first 40 characters */
  commit_hash: string;
  parent_commit_hash: null | string;
  /** JSON object */
  manifest: string;
  description: null | string;
  /** microseconds since the epoch */
  committed_at: number;
}

/** A prompt (a hub repo: POST /repos/): a name unique among the workspace's live prompts, and what describes it; its versions are commits. Keyed tenant_id/prompt_id. A creation whose name a live prompt of the workspace holds, or whose id was used before, is ignored. */
export interface PromptCreated {
  tenant_id: string;
  prompt_id: string;
  repo_handle: string;
  description: null | string;
  readme: null | string;
  tags: string[];
  /** microseconds since the epoch */
  created_at: number;
}

/** A prompt deleted (DELETE /repos/{owner}/{name}) with its commits, tags and likes; its name is free again. Keyed tenant_id/prompt_id. */
export interface PromptDeleted {
  tenant_id: string;
  prompt_id: string;
  /** microseconds since the epoch */
  deleted_at: number;
}

/** A like of a prompt, or its withdrawal (POST /likes/{owner}/{name}, {like: bool}). The liker is the API key (its hash); a key likes a prompt once. Keyed tenant_id/prompt_id. */
export interface PromptLiked {
  tenant_id: string;
  prompt_id: string;
  /** the liker's API key hash */
  liker: string;
  like: boolean;
  /** microseconds since the epoch */
  liked_at: number;
}

/** A tag on a commit of a prompt (POST /repos/{owner}/{name}/tags): the name names that commit from now on, so tagging another commit moves it. Keyed tenant_id/prompt_id. Ignored for a commit the prompt does not have. */
export interface PromptTagged {
  tenant_id: string;
  prompt_id: string;
  tag_name: string;
  commit_id: string;
  /** microseconds since the epoch */
  tagged_at: number;
}

/** A change to a prompt (PATCH /repos/{owner}/{name}): the fields named in `fields` take the values given. Keyed tenant_id/prompt_id. Ignored for a prompt that is not live. */
export interface PromptUpdated {
  tenant_id: string;
  prompt_id: string;
  /** of description, readme, tags, is_archived */
  fields: string[];
  description: null | string;
  readme: null | string;
  tags: null | string[];
  is_archived: null | boolean;
  /** microseconds since the epoch */
  updated_at: number;
}

/** A deployment's new revision (creation, or a PATCH that changes source_revision_config, secrets or resource_spec), in status CREATING. Ignored by the fold unless the deployment is active where it lands (not AWAITING_DELETE, not removed). */
export interface RevisionCreated {
  tenant_id: string;
  deployment_id: string;
  revision_id: string;
  /** the deployment's source, or the PATCH's revision_source */
  source: string;
  /** this revision's SourceRevisionConfig, as JSON */
  source_revision_config: string;
  /** the [{name, value}] list, sealed by SecretBox (AES-256-GCM); never plain text */
  secrets: string;
  /** names of the secrets, shown instead of the values */
  secret_names: string[];
  /** microseconds since the epoch */
  created_at: number;
}

/** A revision moved on (QUEUED at creation; the deployer moves it through AWAITING_BUILD ... DEPLOYED or a *_FAILED status). DEPLOYED makes it the deployment's active revision. v2 adds the commit a git revision was built from and how its agent server authenticates callers. */
export interface RevisionStatusChanged {
  tenant_id: string;
  deployment_id: string;
  revision_id: string;
  /** one of the 13 revision statuses of the contract */
  status: string;
  /** why, for a failure */
  detail: null | string;
  /** DEPLOYED: where the revision's agent server listens on this machine (the deployment gateway forwards its URL there) */
  server_url: null | string;
  /** microseconds since the epoch */
  changed_at: number;
  /** the commit a github revision was built from, once fetched (AWAITING_DEPLOY on); a later null keeps the one known */
  repo_commit_sha: null | string;
  /** DEPLOYED: how its agent server authenticates callers: api_key (the platform's keys of the deployment's workspace, which the gateway checks too) or custom (the auth module of its langgraph.json) */
  server_auth: null | string;
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
  AnnotationQueueCreated: AnnotationQueueCreated;
  AnnotationQueueDeleted: AnnotationQueueDeleted;
  AnnotationQueueRunReviewed: AnnotationQueueRunReviewed;
  AnnotationQueueRunsAdded: AnnotationQueueRunsAdded;
  AnnotationQueueRunsRemoved: AnnotationQueueRunsRemoved;
  AnnotationQueueUpdated: AnnotationQueueUpdated;
  ApiKeyIssued: ApiKeyIssued;
  ApiKeyLinked: ApiKeyLinked;
  ApiKeyUnlinked: ApiKeyUnlinked;
  ComparativeExperimentCreated: ComparativeExperimentCreated;
  DatasetCreated: DatasetCreated;
  DatasetDeleted: DatasetDeleted;
  DatasetTagged: DatasetTagged;
  DatasetUpdated: DatasetUpdated;
  DeploymentCreated: DeploymentCreated;
  DeploymentRemoved: DeploymentRemoved;
  DeploymentSoftDeleted: DeploymentSoftDeleted;
  DeploymentStatusChanged: DeploymentStatusChanged;
  DeploymentTracingProjectDeleted: DeploymentTracingProjectDeleted;
  DeploymentUpdated: DeploymentUpdated;
  DestinationCreated: DestinationCreated;
  DestinationCredentialsRotated: DestinationCredentialsRotated;
  ExampleCreated: ExampleCreated;
  ExampleDeleted: ExampleDeleted;
  ExampleUpdated: ExampleUpdated;
  ExportCancelled: ExportCancelled;
  ExportCreated: ExportCreated;
  ExportRunFilePending: ExportRunFilePending;
  ExportRunFinished: ExportRunFinished;
  ExportRunProgressed: ExportRunProgressed;
  ExportRunScheduled: ExportRunScheduled;
  ExportRunStarted: ExportRunStarted;
  FeedbackConfigCreated: FeedbackConfigCreated;
  FeedbackConfigDeleted: FeedbackConfigDeleted;
  FeedbackConfigUpdated: FeedbackConfigUpdated;
  FeedbackDeleted: FeedbackDeleted;
  FeedbackSubmitted: FeedbackSubmitted;
  FeedbackTokenCreated: FeedbackTokenCreated;
  FeedbackUpdated: FeedbackUpdated;
  ProjectCreated: ProjectCreated;
  ProjectDeleted: ProjectDeleted;
  ProjectUpdated: ProjectUpdated;
  PromptCommitted: PromptCommitted;
  PromptCreated: PromptCreated;
  PromptDeleted: PromptDeleted;
  PromptLiked: PromptLiked;
  PromptTagged: PromptTagged;
  PromptUpdated: PromptUpdated;
  RevisionCreated: RevisionCreated;
  RevisionStatusChanged: RevisionStatusChanged;
  RunLineageRecorded: RunLineageRecorded;
  RunOpsAppended: RunOpsAppended;
  WorkspaceCreated: WorkspaceCreated;
}
