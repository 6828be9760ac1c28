// The Accept header read as RFC 9110 says: qualities, the most specific range deciding, q=0 as "not this".
import { describe, expect, test } from 'vitest';
import { accepts, preferredMediaType } from '../../../platform/http/contentNegotiation.ts';

const offered = ['application/json', 'text/event-stream'] as const;

describe('preferredMediaType', () => {
  test.each([
    [undefined, 'application/json'],
    ['  ', 'application/json'],
    ['*/*', 'application/json'],
    ['text/event-stream', 'text/event-stream'],
    ['text/event-stream;q=0.9, application/json;q=0.8', 'text/event-stream'],
    // The most specific range decides a type's quality: */* does not bring back a type refused by name.
    ['application/json;q=0, */*', 'text/event-stream'],
    ['text/*;q=0, */*;q=0.1', 'application/json'],
    // Named exactly beats admitted by a wildcard at the same quality; then the server's order.
    ['*/*, text/event-stream', 'text/event-stream'],
    ['text/event-stream, application/json', 'application/json'],
    ['application/json;q=bogus, text/event-stream;q=0.1', 'text/event-stream'],
    ['garbage, text/event-stream', 'text/event-stream'],
    ['text/html', null],
    ['*/*;q=0', null],
  ])('%j → %j', (header, expected) => {
    expect(preferredMediaType(header, offered)).toBe(expected);
  });
});

test('accepts: whether any of the types is admitted', () => {
  expect(accepts(undefined, 'application/json')).toBe(true);
  expect(accepts('text/html, application/*;q=0.8', 'application/json')).toBe(true);
  expect(accepts('application/json;q=0', 'application/json')).toBe(false);
  expect(accepts('application/a2a+json', 'application/json', 'application/a2a+json')).toBe(true);
});
