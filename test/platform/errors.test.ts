// The error catalogue (platform/errors.ts) and its page (docs/errors.md) cannot drift: every code
// is documented with its status and retry answer, and every documented code exists, as fastify's
// test/internals/errors.test.js checks docs/Reference/Errors.md. The same for the A2A JSON-RPC codes.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { AppError, ERROR_CODES, errors, type ErrorCode } from '../../platform/errors.ts';
import { JSON_RPC_CODES } from '../../services/agent-server/a2a/jsonRpc.ts';

const page = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf-8');

/** The table rows of a `## <heading>` section, as cells. */
function tableOf(heading: string): string[][] {
  const start = page.indexOf(`\n## ${heading}\n`);
  expect(start, `docs/errors.md has a "## ${heading}" section`).toBeGreaterThan(-1);
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end === -1 ? undefined : end);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

describe('HTTP errors', () => {
  const documented = new Map(
    tableOf('HTTP errors').map(([code, status, retry]) => [code!.replaceAll('`', ''), { status, retry }]),
  );

  test('every code of the catalogue is documented, with its status and whether retrying helps', () => {
    for (const [code, { status, retryable }] of Object.entries(ERROR_CODES)) {
      const doc = documented.get(code);
      expect(doc, `${code} is documented in docs/errors.md`).toBeDefined();
      expect(doc!.status, `${code}: status`).toBe(String(status));
      expect(doc!.retry, `${code}: retry`).toBe(retryable ? 'yes' : 'no');
    }
  });

  test('every documented code is in the catalogue', () => {
    for (const code of documented.keys())
      expect(Object.keys(ERROR_CODES), `${code} in platform/errors.ts`).toContain(code);
  });

  test("every error the factories make has its code's status and retry answer", () => {
    const made: AppError[] = [
      errors.badRequest('x'),
      errors.invalidFilter('x'),
      errors.invalidJson('x', 'y'),
      errors.invalidField('x'),
      errors.jsonTooDeep('x', 1),
      errors.invalidMultipart('x'),
      errors.unsupportedEncoding('br'),
      errors.undecodableBody('gzip', 'x'),
      errors.unsupportedMediaType('a', 'b'),
      errors.notAcceptable('a', ['b']),
      errors.bodyTooLarge(1),
      errors.uriTooLong('x'),
      errors.notFound('x'),
      errors.noRoute('GET', '/x'),
      errors.methodNotAllowed('POST', '/x', ['GET']),
      errors.conflict('x'),
      errors.threadBusy(),
      errors.destinationCheckFailed('x'),
      errors.missingApiKey(),
      errors.unknownApiKey(),
      errors.tenantRequired(),
      errors.invalidTenantId('x'),
      errors.workspaceForbidden('x'),
      errors.validation('x'),
      errors.rateLimited('x', 1),
      errors.readModelUnavailable(),
      errors.internal(),
      errors.notConfigured('x'),
      errors.kafkaUnavailable('x'),
      errors.eventTooLarge('x'),
      errors.storageUnavailable('x', 'y'),
      errors.storageNotReady('x', 'y', 'z'),
      errors.deploymentUnavailable('x', 'y'),
      errors.controlPlaneUnavailable('x', 'y'),
      errors.refusedByAuthHandler(401, 'x'),
      errors.refusedByAuthHandler(403, 'x'),
      errors.missingCredentials(),
      errors.malformedToken('x'),
      errors.badTokenSignature(),
      errors.unknownTokenKey(),
      errors.tokenExpired(new Date(0)),
      errors.tokenRevoked('x'),
      errors.tokenForOtherWorkspace('x', 'y'),
      errors.deploymentWorkspaceForbidden(),
      errors.authUnavailable('x', 'y'),
    ];
    for (const e of made) {
      const entry = ERROR_CODES[e.code];
      expect(e.statusCode, e.code).toBe(entry.status);
      expect(e.retryable, e.code).toBe(entry.retryable);
    }
    const madeCodes = new Set<ErrorCode>([...made.map((e) => e.code), errors.refusedByAuthHandler(429, 'x').code]);
    expect([...madeCodes].sort(), 'a factory for every code').toEqual(Object.keys(ERROR_CODES).sort());
  });

  test('a code whose status varies takes the status it is given', () => {
    const refused = errors.refusedByAuthHandler(429, 'slow down', { 'retry-after': '5' });
    expect(refused).toMatchObject({
      code: 'REFUSED_BY_AUTH_HANDLER',
      statusCode: 429,
      headers: { 'retry-after': '5' },
    });
  });

  test('a wrapped failure is kept as the cause', () => {
    const socket = new Error('connect ECONNREFUSED');
    expect(errors.kafkaUnavailable('no broker', socket).cause).toBe(socket);
    expect(errors.readModelUnavailable(socket).cause).toBe(socket);
  });
});

describe('A2A JSON-RPC errors', () => {
  const documented = tableOf('A2A JSON-RPC errors').map(([code]) => Number(code!.replaceAll('`', '')));

  test('every JSON-RPC code the A2A endpoint uses is documented, and every documented one is used', () => {
    expect([...documented].sort()).toEqual(Object.values(JSON_RPC_CODES).sort());
  });
});
