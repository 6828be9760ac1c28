// The bulk-export context's worker: what the export-worker process runs
// (services/processes/exportWorkerMain.ts). Apart from plugins.ts so that the API process, which
// registers the routes, does not load the Parquet export. Only a process root imports this module.
export { ExportWorker } from './exportWorker.ts';
export { destinationHostPolicy } from './destinations/destinationS3.ts';
