// The deployments context's HTTP surface and worker: the routes and the deployments' gateway the
// control-plane process registers (services/processes/controlPlaneApp.ts), and the worker it runs
// with the local deployer, with what they share. Only a process root imports this module; other
// contexts use index.ts.
export { deploymentRoutes, type DeploymentRouteOptions } from './deploymentRoutes.ts';
export { deploymentGatewayRoutes } from './deploymentGateway.ts';
export { DeploymentCommands } from './deploymentCommands.ts';
export { DeploymentWorker } from './deploymentWorker.ts';
export { RevisionLogs } from './revisionLogs.ts';
export { SourceLocationPolicy } from './sourceLocations.ts';
