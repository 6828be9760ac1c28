// Query strings arrive as text. A route's querystring schema may type its parameters (integer,
// number, boolean, or an array of those or of strings: `?id=a&id=b`, or `?id=a` alone): each is
// read into its type before the schema is checked, as FastAPI reads them, so the document says
// `integer` where the route takes one, and the schema checks ranges and enums. A value that does
// not read as its type is left as it came, and the schema refuses it (422 naming it). JSON bodies
// are not coerced (the server's ajv has coerceTypes off).
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';

type Reader = (text: string) => unknown;

const TRUE = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE = new Set(['false', '0', 'no', 'off', 'f', 'n']);

/** What a query value reads as, for each type a parameter may have; the text itself when it does not. */
const READERS: Record<string, Reader> = {
  integer: (text) => (/^[+-]?\d+$/.test(text.trim()) && Number.isSafeInteger(Number(text)) ? Number(text) : text),
  number: (text) => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text),
  boolean: (text) => (TRUE.has(text.toLowerCase()) ? true : FALSE.has(text.toLowerCase()) ? false : text),
  string: (text) => text,
};

type ParameterSchema = { type?: unknown; items?: ParameterSchema };

/** How to read a parameter of this schema from its (one or repeated) values; null when it is text as it comes. */
function readerOf(schema: ParameterSchema): ((value: string | string[]) => unknown) | null {
  if (schema.type === 'array') {
    const item = READERS[String(schema.items?.type ?? 'string')];
    if (!item) return null;
    return (value) => [value].flat().map(item);
  }
  const read = typeof schema.type === 'string' && schema.type !== 'string' ? READERS[schema.type] : undefined;
  if (!read) return null;
  // Repeated where one is taken: left as it is, for the schema to refuse.
  return (value) => (Array.isArray(value) ? value : read(value));
}

/** For every route registered after this (in this scope and below): its typed query parameters read into their types. */
export function declareTypedQueries(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const properties = (route.schema?.querystring as { properties?: Record<string, ParameterSchema> } | undefined)
      ?.properties;
    if (!properties) return;
    const readers = Object.entries(properties).flatMap(([name, schema]) => {
      const read = readerOf(schema);
      return read ? [[name, read] as const] : [];
    });
    if (readers.length === 0) return;
    const typeQuery = async (request: FastifyRequest): Promise<void> => {
      const query = request.query as Record<string, string | string[] | undefined>;
      for (const [name, read] of readers) {
        const value = query[name];
        if (value !== undefined) query[name] = read(value) as string;
      }
    };
    route.preValidation = [typeQuery, ...[route.preValidation ?? []].flat()] as RouteOptions['preValidation'];
  });
}
