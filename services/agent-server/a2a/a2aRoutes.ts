// A2A JSON-RPC endpoint and agent cards (being written).
import type { FastifyInstance } from 'fastify';
import type { AgentServerDeps } from '../agentServerDeps.ts';

export function a2aRoutes(_app: FastifyInstance, _deps: AgentServerDeps): void {}
