// The one request-input module (platform/http/routeInput.ts), which the v1 routes and the v2 read
// routes (formerly routes/traces.ts's own helpers) share: each refusal is the body it was before.
import { expect, test } from 'vitest';
import {
  bool,
  boundedObject,
  int,
  jsonObjectQuery,
  list,
  pageSize,
  rejectUnsupported,
  time,
  timeWindow,
  uuid,
} from '../../../platform/http/routeInput.ts';

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return { status: (err as { statusCode: number }).statusCode, message: (err as Error).message };
  }
  throw new Error('not refused');
};

test('a bad UUID is a 422 naming the field, showing 64 characters of it (v1 routes) or 80 (v2 read routes)', () => {
  const long = 'x'.repeat(100);
  expect(uuid('0190A4F2-7B1C-7D3E-8F00-123456789ABC', 'run_id')).toBe('0190a4f2-7b1c-7d3e-8f00-123456789abc');
  expect(refusal(() => uuid(long, 'run_id'))).toEqual({
    status: 422,
    message: `run_id must be a UUID; got "${'x'.repeat(63)}`,
  });
  expect(refusal(() => uuid(long, 'project_id', 80))).toEqual({
    status: 422,
    message: `project_id must be a UUID; got "${'x'.repeat(79)}`,
  });
  expect(refusal(() => uuid(undefined, 'trace_id', 80)).message).toBe('trace_id must be a UUID; got undefined');
});

test('times, windows, booleans, integers and page sizes', () => {
  expect(time(undefined, 'start_time')).toBeNull();
  expect(time('2024-01-01T00:00:00Z', 'start_time')).toBe(1_704_067_200_000_000);
  expect(timeWindow('2024-01-01T00:00:00Z', '2024-01-02T00:00:00Z', 1)).toEqual({
    min: 1_704_067_200_000_000,
    max: 1_704_153_600_000_000,
  });
  expect(timeWindow(undefined, '2024-01-02T00:00:00Z', 86_400_000_000).min).toBe(1_704_067_200_000_000);
  expect(refusal(() => timeWindow('2024-01-02T00:00:00Z', '2024-01-01T00:00:00Z', 1))).toEqual({
    status: 400,
    message: 'min_start_time must be before max_start_time',
  });
  expect(bool('True', 'has_error')).toBe(true);
  expect(refusal(() => bool('maybe', 'has_error'))).toEqual({
    status: 422,
    message: 'has_error must be true or false; got "maybe"',
  });
  expect(int(undefined, 'limit', 7, 1, 10)).toBe(7);
  expect(refusal(() => int('11', 'limit', 7, 1, 10))).toEqual({
    status: 422,
    message: 'limit must be an integer from 1 to 10; got "11"',
  });
  expect(pageSize(undefined, 100)).toBe(20);
  expect(pageSize('5', 100)).toBe(5);
  expect(refusal(() => pageSize(101, 100))).toEqual({
    status: 422,
    message: 'page_size must be an integer from 1 to 100; got 101',
  });
  expect(refusal(() => pageSize('2x', 100))).toEqual({
    status: 422,
    message: 'page_size must be an integer from 1 to 100; got "2x"',
  });
});

test('repeated parameters, and fields the service does not evaluate', () => {
  expect(list(undefined)).toEqual([]);
  expect(list('A')).toEqual(['A']);
  expect(list(['A', 'B'])).toEqual(['A', 'B']);
  expect(() => rejectUnsupported({ filter: null, other: 1 }, ['filter'])).not.toThrow();
  expect(refusal(() => rejectUnsupported({ ai_search: 'x' }, ['ai_search']))).toEqual({
    status: 400,
    message: 'ai_search is not supported by this server; leave it out',
  });
});

test('a JSON object in a query parameter: absent or empty is undefined, text that does not parse a 400, another JSON value a 422', () => {
  expect(jsonObjectQuery(undefined, 'metadata')).toBeUndefined();
  expect(jsonObjectQuery('', 'metadata')).toBeUndefined();
  expect(jsonObjectQuery(' {"a": [1]} ', 'metadata')).toEqual({ a: [1] });
  expect(refusal(() => jsonObjectQuery('{nope', 'metadata'))).toMatchObject({
    status: 400,
    message: expect.stringContaining('metadata'),
  });
  expect(refusal(() => jsonObjectQuery('[1]', 'metadata'))).toEqual({
    status: 422,
    message: 'metadata must be a JSON object',
  });
  expect(refusal(() => jsonObjectQuery('null', 'metadata'))).toEqual({
    status: 422,
    message: 'metadata must be a JSON object',
  });
});

test('an object field bounded in size: null when absent, a 422 naming the field when its JSON is over the bound', () => {
  expect(boundedObject(undefined, 'extra', 1024)).toBeNull();
  expect(boundedObject(null, 'extra', 1024)).toBeNull();
  expect(boundedObject({ a: 'x' }, 'extra', 1024)).toEqual({ a: 'x' });
  expect(refusal(() => boundedObject({ a: 'x'.repeat(1024) }, 'extra', 1024))).toEqual({
    status: 422,
    message: 'extra is larger than 1 KiB',
  });
});
