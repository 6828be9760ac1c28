// The datasets context's HTTP surface: the routes the API process registers
// (services/processes/tracingApp.ts). Only a process root imports this module.
export { datasetRoutes, type DatasetRouteOptions } from './datasetRoutes.ts';
export { exampleRoutes, type ExampleRouteOptions } from './exampleRoutes.ts';
export { datasetRunsRoutes, type DatasetRunsRouteOptions } from './datasetRunsRoutes.ts';
