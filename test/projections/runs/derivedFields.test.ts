import { describe, expect, test } from 'vitest';
import { firstTokenTime, metadataFields, ownUsage } from '../../../projections/runs/derivedFields.ts';
import { deriveRunFields } from '../../../projections/runs/deriveRun.ts';
import { emptyRow, mergeRunOp } from '../../../projections/runs/runRow.ts';
import { runOp } from '../../support/runFactory.ts';

describe('thread and metadata', () => {
  test('thread_id wins over session_id, which wins over conversation_id', () => {
    expect(
      metadataFields(JSON.stringify({ metadata: { conversation_id: 'c', session_id: 's', thread_id: 't' } })).thread_id,
    ).toBe('t');
    expect(metadataFields(JSON.stringify({ metadata: { conversation_id: 'c', session_id: 's' } })).thread_id).toBe('s');
    expect(metadataFields(JSON.stringify({ metadata: { conversation_id: 'c' } })).thread_id).toBe('c');
    expect(metadataFields(JSON.stringify({ metadata: { thread_id: '', conversation_id: 'c' } })).thread_id).toBe('c');
    expect(metadataFields('').thread_id).toBe('');
    expect(metadataFields('not json').thread_id).toBe('');
  });
  test('metadata pairs keep strings as they are and other values as JSON', () => {
    const m = metadataFields(JSON.stringify({ metadata: { a: 'x', n: 1, o: { k: [1] }, z: null } }));
    expect(m.metadata_keys).toEqual(['a', 'n', 'o', 'z']);
    expect(m.metadata_values).toEqual(['x', '1', '{"k":[1]}', 'null']);
  });
});

describe('usage', () => {
  test('usage_metadata, OpenAI token_usage, LangChain generations and extra metadata', () => {
    expect(
      ownUsage(
        'llm',
        JSON.stringify({ usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7, total_cost: 0.5 } }),
        '',
      ),
    ).toEqual({
      prompt_tokens: 3,
      completion_tokens: 4,
      total_tokens: 7,
      prompt_cost: 0,
      completion_cost: 0,
      total_cost: 0.5,
    });
    expect(
      ownUsage('llm', JSON.stringify({ llm_output: { token_usage: { prompt_tokens: 2, completion_tokens: 5 } } }), '')
        ?.total_tokens,
    ).toBe(7);
    const generations = {
      generations: [
        [{ message: { kwargs: { usage_metadata: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } } }],
      ],
    };
    expect(ownUsage('llm', JSON.stringify(generations), '')?.total_tokens).toBe(2);
    expect(
      ownUsage('llm', '{}', JSON.stringify({ metadata: { usage_metadata: { input_tokens: 9, output_tokens: 1 } } }))
        ?.total_tokens,
    ).toBe(10);
  });
  test('only LLM runs have usage of their own', () => {
    expect(ownUsage('chain', JSON.stringify({ usage_metadata: { total_tokens: 7 } }), '')).toBeNull();
  });
});

test('first token time is the earliest new_token event', () => {
  const events = [
    { name: 'start', time: '2026-01-01T00:00:00Z' },
    { name: 'new_token', time: '2026-01-01T00:00:02.5Z' },
    { name: 'new_token', time: '2026-01-01T00:00:01.25Z' },
  ];
  expect(firstTokenTime(JSON.stringify(events))).toBe(Date.parse('2026-01-01T00:00:01.25Z') * 1000);
  expect(firstTokenTime('[]')).toBeNull();
});

const op = runOp;

test('derived fields follow the merged row, not the op: a late post does not override a patch', () => {
  const patch = op({ op: 'patch', extra: JSON.stringify({ metadata: { thread_id: 'from-patch' } }) });
  let row = mergeRunOp(emptyRow('t', 'r', 'r'), patch, 1, 0)!;
  deriveRunFields(row, patch, new Map());
  const post = op({
    run_type: 'llm',
    extra: JSON.stringify({ metadata: { thread_id: 'from-post' } }),
    outputs: JSON.stringify({ usage_metadata: { total_tokens: 5 } }),
  });
  row = mergeRunOp(row, post, 2, 0)!;
  deriveRunFields(row, post, new Map());
  expect(row.thread_id).toBe('from-patch');
  expect(JSON.parse(row.usage).total_tokens).toBe(5);
});

test('a patch that sends the extra the run holds keeps what was derived from it; another extra is derived anew', () => {
  const extra = JSON.stringify({ metadata: { thread_id: 't-1', user: 'a' } });
  const post = op({ extra, run_type: 'chain' });
  const posted = mergeRunOp(emptyRow('t', 'r', 'r'), post, 1, 0)!;
  deriveRunFields(posted, post, new Map(), null);
  expect([posted.thread_id, posted.metadata_keys, posted.metadata_values]).toEqual([
    't-1',
    ['thread_id', 'user'],
    ['t-1', 'a'],
  ]);
  // The same text again (a copy, as a client sends it): not parsed again, so a row whose fields
  // were derived otherwise keeps them (which shows the parse was skipped).
  const marked = { ...posted, thread_id: 'derived-before' };
  const same = op({ op: 'patch', extra: `${extra}` });
  const patched = mergeRunOp(marked, same, 2, 0)!;
  deriveRunFields(patched, same, new Map(), marked);
  expect(patched.thread_id).toBe('derived-before');
  const other = op({ op: 'patch', extra: JSON.stringify({ metadata: { thread_id: 't-2' } }) });
  const changed = mergeRunOp(patched, other, 3, 0)!;
  deriveRunFields(changed, other, new Map(), patched);
  expect([changed.thread_id, changed.metadata_keys]).toEqual(['t-2', ['thread_id']]);
});
