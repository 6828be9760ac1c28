// (being written) routes: see docs/read-models.md
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from './routeDeps.ts';

export function runQueryRoutes(_app: FastifyInstance, _deps: RouteDeps): void {}
export function v2RunQueryRoutes(_app: FastifyInstance, _deps: RouteDeps): void {}
