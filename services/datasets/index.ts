// The datasets context's public module: what other contexts and processes may use. Datasets are
// folded from their topic by DatasetRegistry (projections/datasets); their routes are in
// plugins.ts, for process roots.
export { DatasetCommands } from './datasetCommands.ts';
