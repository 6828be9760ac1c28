// The bulk-export context's HTTP surface: the routes the API process registers
// (services/processes/tracingApp.ts). Only a process root imports this module; other contexts use
// index.ts. Its worker is worker.ts.
export { bulkExportRoutes, type BulkExportRouteOptions } from './bulkExportRoutes.ts';
