// The annotation queues context's public module: what other contexts and processes may use.
// Queues are folded from their topic by AnnotationQueueRegistry (projections/annotation-queues);
// their routes are in plugins.ts, for process roots.
export { AnnotationQueueCommands } from './annotationQueueCommands.ts';
