// The tenancy context's HTTP surface: the workspace routes a process registers (the tracing API
// and the control plane, services/processes/; the example chat app serves them too). Only a
// process root imports this module; other contexts use index.ts (the API-key hook included).
export { currentWorkspaceRoutes, workspaceRoutes } from './workspaceRoutes.ts';
