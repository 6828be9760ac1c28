// The bulk-export context's HTTP surface and worker: the routes the API process registers
// (services/processes/tracingApp.ts) and the worker the export-worker process runs
// (services/processes/exportWorkerMain.ts). Only a process root imports this module; other
// contexts use index.ts.
export { bulkExportRoutes, type BulkExportRouteOptions } from './bulkExportRoutes.ts';
export { ExportWorker } from './exportWorker.ts';
export { destinationHostPolicy } from './destinations/destinationS3.ts';
