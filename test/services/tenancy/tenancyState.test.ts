// The fold of the tenancy topic: which workspaces each API key acts in, links and unlinks in order.
import { expect, test } from 'vitest';
import type { DecodedEvent } from '../../../schemas/registry.ts';
import { TenancyState } from '../../../services/tenancy/tenancyState.ts';

const fold = (...events: DecodedEvent[]) => {
  const state = new TenancyState();
  for (const e of events) state.apply(e);
  return state;
};
const issued: DecodedEvent = {
  name: 'ApiKeyIssued',
  version: 1,
  payload: {
    key_hash: 'h',
    key_prefix: 'lsk_abcd',
    description: 'd',
    created_at: 0,
    deployment_id: null,
    revision_id: null,
  },
};
const linked = (workspace_id: string): DecodedEvent => ({
  name: 'ApiKeyLinked',
  version: 1,
  payload: { key_hash: 'h', workspace_id, created_at: 0 },
});
const unlinked = (workspace_id: string): DecodedEvent => ({
  name: 'ApiKeyUnlinked',
  version: 1,
  payload: { key_hash: 'h', workspace_id, created_at: 0 },
});

test('a key acts in the workspaces linked to it, less those unlinked since', () => {
  expect([...fold(issued, linked('a'), linked('b'), unlinked('a')).keys.get('h')!.workspaceIds]).toEqual(['b']);
  expect(fold(issued, linked('a'), unlinked('a')).keys.get('h')!.workspaceIds.size).toBe(0);
});

test('a link after an unlink gives the workspace back; an unlink of a workspace never linked changes nothing', () => {
  expect([...fold(issued, linked('a'), unlinked('a'), linked('a')).keys.get('h')!.workspaceIds]).toEqual(['a']);
  expect([...fold(issued, linked('a'), unlinked('z')).keys.get('h')!.workspaceIds]).toEqual(['a']);
  expect(fold(unlinked('a')).keys.size).toBe(0);
});
