// The ADK adapter's public module: what user code imports to serve a Google ADK agent on the agent
// server (examples/adk-agent/echoAgent.ts shows it).
export { CheckpointSessionService } from './checkpointSessionService.ts';
export { SESSION_CHANNEL, UnsupportedAdkInput, wrap } from './wrap.ts';
