// Every Kafka topic, declared once with its settings, beside the Avro schemas of its events
// (schemas/<topic>/<Event>.v<N>.avsc). platform/kafka/topicAdmin.ts creates topics from this
// list; everything else names a topic through TOPICS. test/schemas/topics.test.ts checks that
// every schema folder is a declared topic and every declared topic with events has a folder.

export interface TopicDeclaration {
  /** The logical name (the configured KAFKA_TOPIC_PREFIX is put in front); also its schema folder. */
  readonly name: string;
  /**
   * `configured`: KAFKA_PARTITIONS, for logs keyed so that one key's events stay in order in one
   * partition (a trace, a run's feedback). `1`: a single ordered log that every replica folds in
   * the same order (registries whose commands are decided against the fold).
   */
  readonly partitions: 'configured' | 1;
  /**
   * `delete` with retention -1: every event kept forever (the system of record: replays rebuild
   * read models from it). `compact`: only a key's newest event matters (a lookup table).
   */
  readonly cleanupPolicy: 'delete' | 'compact';
  /** The topic a projector keeps messages of this one it cannot read in, byte for byte (projections/shared/projectorRuntime.ts). */
  readonly deadLetter?: string;
  /** Whether events of this topic have Avro schemas in schemas/<name>/ (dead-letter topics hold raw bytes). */
  readonly hasSchemas: boolean;
}

const declarations = {
  runs: {
    name: 'tracing.runs',
    partitions: 'configured',
    cleanupPolicy: 'delete',
    deadLetter: 'tracing.runs.dead-letter',
    hasSchemas: true,
  },
  feedback: {
    name: 'tracing.feedback',
    partitions: 'configured',
    cleanupPolicy: 'delete',
    deadLetter: 'tracing.feedback.dead-letter',
    hasSchemas: true,
  },
  /** Projects (sessions): created, renamed, deleted; folded in order by every replica. */
  projects: { name: 'tracing.projects', partitions: 1, cleanupPolicy: 'delete', hasSchemas: true },
  /**
   * Feedback configs (what feedback under a key holds): created, changed, deleted. One
   * partition, folded by every API process, which decides what a key's configs allow
   * (projections/feedback/feedbackConfigRegistry.ts).
   */
  feedbackConfigs: { name: 'tracing.feedback-configs', partitions: 1, cleanupPolicy: 'delete', hasSchemas: true },
  /** Where a run of another trace lives (cross-agent links): one record per run id, so compacted. */
  runLineage: { name: 'tracing.run-lineage', partitions: 'configured', cleanupPolicy: 'compact', hasSchemas: true },
  /** Workspaces and API keys. */
  tenancy: { name: 'tenancy.events', partitions: 1, cleanupPolicy: 'delete', hasSchemas: true },
  /** Destinations, exports and export runs: commands decided against the fold of this topic. */
  bulkExport: { name: 'bulk-export.events', partitions: 1, cleanupPolicy: 'delete', hasSchemas: true },
  /**
   * Deployments and their revisions (the control plane). One partition, like bulk-export.events:
   * every replica folds the same events in the same order, and a state-checked command (force
   * delete only from AWAITING_DELETE, a new revision only on an active deployment, a free name) is
   * decided by that order: the fold ignores an event whose precondition no longer holds where it
   * landed, and the command reads back whether its own event took effect (deploymentCommands.ts).
   */
  deployments: { name: 'deployments.events', partitions: 1, cleanupPolicy: 'delete', hasSchemas: true },
  /**
   * Datasets (the evaluation loop): created, changed, deleted. One partition, like projects: every
   * replica folds the same events in the same order, and a dataset's name belongs to the first
   * live dataset created with it (projections/datasets/datasetRegistry.ts).
   */
  datasets: { name: 'datasets.events', partitions: 1, cleanupPolicy: 'delete', hasSchemas: true },
  /**
   * Dataset examples: created, changed, deleted, each write a version of its dataset. Keyed by
   * dataset, so a dataset's examples stay in order in one partition; projected into ClickHouse
   * with every version kept (projections/examples), which answers reads `as_of` a version.
   */
  examples: {
    name: 'datasets.examples',
    partitions: 'configured',
    cleanupPolicy: 'delete',
    deadLetter: 'datasets.examples.dead-letter',
    hasSchemas: true,
  },
  /**
   * Annotation queues and their items (runs people review): created, changed, deleted, runs
   * added and removed, items reviewed. One partition, folded by every API process in one order
   * (projections/annotation-queues/annotationQueueRegistry.ts).
   */
  annotationQueues: { name: 'annotation-queues.events', partitions: 1, cleanupPolicy: 'delete', hasSchemas: true },
  /**
   * Prompts (hub repos): created, changed, deleted, committed (each commit's manifest), tagged,
   * liked. One partition, folded by every API process in one order
   * (projections/prompts/promptRegistry.ts), which decides who holds a name and which commit is latest.
   */
  prompts: { name: 'prompts.events', partitions: 1, cleanupPolicy: 'delete', hasSchemas: true },
  runsDeadLetter: {
    name: 'tracing.runs.dead-letter',
    partitions: 'configured',
    cleanupPolicy: 'delete',
    hasSchemas: false,
  },
  feedbackDeadLetter: {
    name: 'tracing.feedback.dead-letter',
    partitions: 'configured',
    cleanupPolicy: 'delete',
    hasSchemas: false,
  },
  examplesDeadLetter: {
    name: 'datasets.examples.dead-letter',
    partitions: 'configured',
    cleanupPolicy: 'delete',
    hasSchemas: false,
  },
} as const satisfies Record<string, TopicDeclaration>;

type Declarations = typeof declarations;

/** Every topic, as created at start-up. */
export const TOPIC_DECLARATIONS: readonly TopicDeclaration[] = Object.values(declarations);

/** Logical topic names by role: `TOPICS.runs` is `tracing.runs`. */
export const TOPICS = Object.fromEntries(Object.entries(declarations).map(([role, d]) => [role, d.name])) as {
  readonly [Role in keyof Declarations]: Declarations[Role]['name'];
};

type WithDeadLetter = Extract<Declarations[keyof Declarations], { deadLetter: string }>;

/** The topics projectors read, each with the topic that keeps what they cannot read. */
export const DEAD_LETTER_TOPICS = Object.fromEntries(
  Object.values(declarations).flatMap((d: TopicDeclaration) => (d.deadLetter ? [[d.name, d.deadLetter]] : [])),
) as { readonly [D in WithDeadLetter as D['name']]: D['deadLetter'] };

export type ProjectedTopic = keyof typeof DEAD_LETTER_TOPICS;
