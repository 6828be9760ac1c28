// The prompts context's HTTP surface: the routes the API process registers
// (services/processes/tracingApp.ts). Only a process root imports this module.
export { promptRoutes, type PromptRouteOptions } from './promptRoutes.ts';
