// The prompts context's public module: what other contexts and processes may use. Prompts (the
// hub's repos, their commits, tags and likes) are folded from their topic by PromptRegistry
// (projections/prompts); their routes are in plugins.ts, for process roots.
export { PromptCommands } from './promptCommands.ts';
