// The tenancy context's public module: what other contexts and processes may use. Workspaces
// and API keys (TenancyService folds the tenancy topic; openTenancyReader for a process that only
// authenticates), and the API-key hook that puts the caller's workspace on each request. Its
// routes are in plugins.ts, for process roots.
export { TenancyService } from './tenancyService.ts';
export { DEFAULT_WORKSPACE_ID, generateApiKey } from './apiKeys.ts';
export { keyHashOf, requireApiKey, tenantOf } from './apiKeyAuth.ts';
export { openTenancyReader, type TenancyReader, type TenancyReaderConfig } from './tenancyReader.ts';
export type { DeploymentKeyOwner } from './tenancyService.ts';
