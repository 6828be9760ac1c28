// The tracing context's public module: what other contexts and processes may use. Projects
// (sessions): the fold of the projects topic and the commands on it. The deployments context uses
// them to delete a deployment's tracing project (DELETE /v2/deployments/{id}?delete_tracing_project=true):
// a ProjectDeleted on the projects topic, the event DELETE /sessions/{id} appends, after which the
// projectors remove the project's runs and feedback. Runs by id, as GET /runs/{id} answers them,
// for the annotation queues' reviewers (and which of them are stored, for the queues' counts).
// The root runs of a dataset's experiments by example, for the datasets' POST /datasets/{id}/runs.
export { ProjectRegistry } from '../../projections/projects/projectRegistry.ts';
export { ProjectCommands } from './projects/projectCommands.ts';
export { runsByIds, storedRunIds } from './read/runsByIds.ts';
export {
  experimentRunExamples,
  parseRunFilters,
  rootRunsOfExamples,
  runScores,
  type ExampleRunsRequest,
} from './read/experimentRuns.ts';
