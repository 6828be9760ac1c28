import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { decodeEvent, encodeEvent } from '../../schemas/registry.ts';

describe('schema registry', () => {
  test('generated TypeScript types match the Avro schemas', () => {
    expect(() =>
      execFileSync(process.execPath, [join(import.meta.dirname, '../../schemas/generateTypes.ts'), '--check']),
    ).not.toThrow();
  });
  test('events round-trip through Avro with their type and version in headers', () => {
    const payload = {
      tenant_id: 't',
      project_id: 'p',
      name: 'n',
      description: null,
      extra: null,
      created_at: 1,
      reference_dataset_id: null,
      start_time: null,
      end_time: null,
    };
    const encoded = encodeEvent('ProjectCreated', payload);
    expect(encoded.headers).toEqual({ 'event-type': 'ProjectCreated', 'schema-version': '2' });
    const decoded = decodeEvent(new Map(Object.entries(encoded.headers)), encoded.value);
    expect(decoded).toEqual({ name: 'ProjectCreated', version: 2, payload });
  });
});
