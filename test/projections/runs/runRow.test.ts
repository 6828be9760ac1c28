import { describe, expect, test } from 'vitest';
import { emptyRow, mergeRunOp } from '../../../projections/runs/runRow.ts';
import { opVersion } from '../../../projections/shared/runRow.ts';
import type { RunOp } from '../../../schemas/events.generated.ts';

const base: RunOp = {
  op: 'post',
  run_id: 'r',
  session_id: 's',
  parent_run_id: null,
  dotted_order: '20260101T000000000001Zr',
  name: 'n',
  run_type: 'chain',
  start_time: 1,
  end_time: null,
  inputs: '{"q":1}',
  outputs: null,
  events: null,
  extra: '{"a":1}',
  serialized: null,
  error: null,
  tags: ['x'],
  reference_example_id: null,
  attachments: [],
};
const post: RunOp = base;
const patch: RunOp = {
  ...base,
  op: 'patch',
  session_id: null,
  name: null,
  run_type: null,
  start_time: null,
  inputs: null,
  extra: null,
  tags: null,
  end_time: 9,
  outputs: '{"a":2}',
};

describe('mergeRunOp', () => {
  test('post then patch equals patch then post', () => {
    const a = mergeRunOp(mergeRunOp(emptyRow('t', 'r', 'r'), post, opVersion(1, 0), 0)!, patch, opVersion(2, 0), 0)!;
    const b = mergeRunOp(mergeRunOp(emptyRow('t', 'r', 'r'), patch, opVersion(1, 0), 0)!, post, opVersion(2, 0), 0)!;
    expect({ ...a, version: 0 }).toEqual({ ...b, version: 0 });
    expect(a.outputs).toBe('{"a":2}');
    expect(a.inputs).toBe('{"q":1}');
    expect(a.status).toBe('success');
    expect(a.has_post).toBe(1);
  });
  test('an op already applied changes nothing (redelivery, replay)', () => {
    const once = mergeRunOp(emptyRow('t', 'r', 'r'), post, opVersion(5, 0), 0)!;
    expect(mergeRunOp(once, post, opVersion(5, 0), 0)).toBeNull();
    expect(mergeRunOp(once, patch, opVersion(4, 0), 0)).toBeNull();
  });
  test('a re-sent post does not undo a patch', () => {
    const patched = mergeRunOp(mergeRunOp(emptyRow('t', 'r', 'r'), post, 1, 0)!, patch, 2, 0)!;
    const resent = mergeRunOp(patched, { ...post, outputs: '{"stale":true}' }, 3, 0)!;
    expect(resent.outputs).toBe('{"a":2}');
    expect(resent.end_time).toBe(9);
  });
  test('errors win the status; claim-checked payloads stay pointers', () => {
    const blob = { bucket: 'b', key: 'k', size: 10, content_type: 'application/json' };
    const row = mergeRunOp(emptyRow('t', 'r', 'r'), { ...post, error: 'boom', inputs: blob }, 1, 0)!;
    expect(row.status).toBe('error');
    expect(row.inputs).toBe('');
    expect(JSON.parse(row.payload_refs)).toEqual({ inputs: blob });
  });
});
