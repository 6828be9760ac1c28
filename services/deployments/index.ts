// The deployments context's public module: its HTTP surface (a plugin the control-plane process
// registers), the fold of its topic (what the routes answer from, and what a deployer reads), and
// the enumerations of the contract.
export { deploymentRoutes, type DeploymentRouteOptions } from './deploymentRoutes.ts';
export { DeploymentState, deploymentEventKey, type Deployment, type Revision } from './deploymentState.ts';
export { DEPLOYMENT_SOURCES, DEPLOYMENT_STATUSES, REVISION_STATUSES, type DeploymentStatus, type RevisionStatus } from './deploymentTypes.ts';
