// runItemsV2 builds /api/v2 items straight from rows; it must answer exactly what runItemV2 of
// runResponse does (the path the v1 routes' runs take), for every select, payloads in object
// storage included, and read each stored payload once however many selects come from it.
import { expect, test } from 'vitest';
import type { BlobStore } from '../../../../platform/blobStore.ts';
import type { BlobRef } from '../../../../schemas/events.generated.ts';
import { emptyRow } from '../../../../projections/runs/runRow.ts';
import type { RunRow } from '../../../../projections/shared/runRow.ts';
import {
  runItemsV2,
  runItemV2,
  runResponse,
  v2SourceField,
  V2_RUN_SELECTS,
} from '../../../../services/tracing/read/runResponse.ts';

const TENANT = '9e07b0a5-7a1e-5e86-877d-fe30e64d77bf';
const TRACE = '01a232b0-0f2d-7010-8e89-90e651cd32f6';
const CHILD = '01a232b0-0f2d-7010-8e89-90e651cd32f7';

/** Object storage as the shaping sees it: texts by key, and how often each was read. */
function blobsOf(texts: Record<string, string>): { blobs: BlobStore; reads: Map<string, number> } {
  const reads = new Map<string, number>();
  const blobs = {
    getText: async (ref: BlobRef) => {
      reads.set(ref.key, (reads.get(ref.key) ?? 0) + 1);
      const text = texts[ref.key];
      if (text === undefined) throw new Error(`no blob ${ref.key}`);
      return text;
    },
    presignedUrl: async (ref: BlobRef) => `http://blobs.example/${ref.key}?signed`,
  } as unknown as BlobStore;
  return { blobs, reads };
}

const ref = (key: string): BlobRef => ({ bucket: 'b', key, size: 10, content_type: 'application/json' });

function rows(): RunRow[] {
  const root: RunRow = {
    ...emptyRow(TENANT, TRACE, TRACE),
    session_id: '860261c2-b6fc-5531-8022-caae04317726',
    dotted_order: `20261203T120000000000Z${TRACE}`,
    name: 'agent',
    run_type: 'chain',
    status: 'success',
    start_time: 1_796_300_000_000_000,
    end_time: 1_796_300_001_500_123,
    inputs: '{"question":"why"}',
    outputs: '{"answer":"because"}',
    extra: '{"metadata":{"user":"ada"},"runtime":{"lang":"ts"}}',
    error: null,
    tags: ['a', 'b'],
    is_root: 1,
    total_tokens: 30,
    total_cost: 0.25,
    thread_id: 'thread-1',
    attachments: JSON.stringify([{ name: 'image', blob: ref('attachment-1') }]),
  };
  // A child whose extra and outputs are in object storage, with an error longer than a preview.
  const child: RunRow = {
    ...emptyRow(TENANT, TRACE, CHILD),
    session_id: root.session_id,
    dotted_order: `${root.dotted_order}.20261203T120000500000Z${CHILD}`,
    parent_run_id: TRACE,
    name: 'llm',
    run_type: 'llm',
    status: 'error',
    start_time: 1_796_300_000_500_000,
    end_time: null,
    error: 'x'.repeat(700),
    payload_refs: JSON.stringify({ extra: ref('extra-1'), outputs: ref('outputs-1') }),
    first_token_time: 1_796_300_000_600_001,
  };
  return [root, child];
}

const TEXTS = {
  'extra-1': '{"metadata":{"model":"m"},"invocation_params":{"t":0}}',
  'outputs-1': '{"generations":[]}',
};

test('runItemsV2 answers what runItemV2 of runResponse does, for every select, in the selects’ order', async () => {
  const selectLists = [
    [...V2_RUN_SELECTS],
    ['ID', 'NAME', 'RUN_TYPE', 'STATUS', 'START_TIME', 'END_TIME', 'LATENCY_SECONDS', 'PARENT_RUN_IDS'],
    ['METADATA', 'ID', 'EXTRA', 'ERROR_PREVIEW', 'ERROR', 'OUTPUTS', 'ATTACHMENTS'],
    [],
  ];
  for (const selects of selectLists) {
    const fields = [...new Set(selects.map(v2SourceField).filter((f): f is string => f !== null))];
    const expected = [];
    for (const row of rows())
      expected.push(runItemV2(await runResponse(row, blobsOf(TEXTS).blobs, { fields }), selects));
    const items = await runItemsV2(rows(), selects, blobsOf(TEXTS).blobs);
    expect(items).toEqual(expected);
    expect(items.map((i) => Object.keys(i))).toEqual(expected.map((i) => Object.keys(i)));
  }
});

test('runItemsV2 reads a stored payload once per run, however many selects come from it', async () => {
  const { blobs, reads } = blobsOf(TEXTS);
  const [root, child] = await runItemsV2(rows(), ['EXTRA', 'METADATA', 'OUTPUTS'], blobs);
  expect(Object.fromEntries(reads)).toEqual({ 'extra-1': 1, 'outputs-1': 1 });
  expect(child).toEqual({
    extra: JSON.parse(TEXTS['extra-1']),
    metadata: { model: 'm' },
    outputs: { generations: [] },
  });
  expect(root).toEqual({
    extra: { metadata: { user: 'ada' }, runtime: { lang: 'ts' } },
    metadata: { user: 'ada' },
    outputs: { answer: 'because' },
  });
});
