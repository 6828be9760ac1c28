// The deployments context's public module: the fold of its topic (what the routes answer from,
// and what a deployer reads), and the enumerations of the contract. Its routes and worker are in
// plugins.ts, for process roots.
export { DeploymentState, deploymentEventKey, type Deployment, type Revision } from './deploymentState.ts';
export {
  DEPLOYMENT_SOURCES,
  DEPLOYMENT_STATUSES,
  REVISION_STATUSES,
  type DeploymentStatus,
  type RevisionStatus,
} from './deploymentTypes.ts';
