// The datasets context's public module: what other contexts and processes may use. Datasets are
// folded from their topic by DatasetRegistry (projections/datasets); their routes are in
// plugins.ts, for process roots. DatasetVersions pins an `as_of` to one version (bulk export).
export { DatasetCommands } from './datasetCommands.ts';
export { DatasetVersions, versionNamed } from './datasetVersions.ts';
