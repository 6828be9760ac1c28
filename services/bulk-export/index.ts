// The bulk-export context's public module: its HTTP surface (a plugin the API process
// registers), the fold of its topic the routes answer from, and how the export worker process
// is started. (Credentials are sealed by platform/secretBox.ts, shared with other contexts.)
export { bulkExportRoutes, type BulkExportRouteOptions } from './bulkExportRoutes.ts';
export { ExportState } from './exportState.ts';
export { exportWorkerProcessEnv } from './exportWorkerProcess.ts';
