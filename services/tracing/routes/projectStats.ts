// (being written) routes: see docs/read-models.md
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from './routeDeps.ts';

export function projectStatsRoutes(_app: FastifyInstance, _deps: RouteDeps): void {}
