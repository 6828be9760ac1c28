// The bulk-export context's public module: its HTTP surface (a plugin the API process
// registers), the fold of its topic the routes answer from, the box that encrypts destination
// credentials, and how the export worker process is started.
export { bulkExportRoutes, type BulkExportRouteOptions } from './bulkExportRoutes.ts';
export { ExportState } from './exportState.ts';
export { SecretBox } from './secretBox.ts';
export { EXPORT_WORKER_PROCESS_ENV } from './exportWorkerProcess.ts';
