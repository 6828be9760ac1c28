// The bulk-export context's public module: the fold of its topic (what its routes answer from).
// Its routes (plugins.ts) and worker (worker.ts) are for process roots. (Credentials are sealed by
// platform/secretBox.ts, shared with other contexts.)
export { ExportState } from './exportState.ts';
