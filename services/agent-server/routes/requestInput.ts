// Reading request input for the agent server's routes: zod-checked bodies and UUID path ids,
// refused with a 422 that names the field, as the LangGraph server does.
import type { FastifyRequest } from 'fastify';
import { validate as isUuid } from 'uuid';
import type { z } from 'zod';
import { errors } from '../../common/errors.ts';
import { ANONYMOUS, type AuthContext } from '../auth.ts';

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : where}: ${i.message}`).join('; ');
  throw errors.validation(`invalid ${where}: ${problems}`);
}

export function uuidParam(value: string | undefined, name: string): string {
  if (!value || !isUuid(value)) throw errors.validation(`${name} must be a UUID, got "${value ?? ''}"`);
  return value.toLowerCase();
}

const authByRequest = new WeakMap<FastifyRequest, AuthContext>();

export function setAuth(request: FastifyRequest, auth: AuthContext): void {
  authByRequest.set(request, auth);
}

/** The caller as authenticated by the config file's auth module, else anonymous. */
export function authOf(request: FastifyRequest): AuthContext {
  return authByRequest.get(request) ?? ANONYMOUS;
}
