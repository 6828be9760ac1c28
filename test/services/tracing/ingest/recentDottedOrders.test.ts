// services/tracing/ingest/recentDottedOrders.ts: what the ingestor remembers of the runs posted
// through the batch routes, for the children of later requests: per workspace, the last N.
import { expect, test } from 'vitest';
import { RecentDottedOrders } from '../../../../services/tracing/ingest/recentDottedOrders.ts';
import { extendsDottedOrder } from '../../../../services/tracing/ingest/dottedOrder.ts';

test('a run is found in its own workspace only', () => {
  const recent = new RecentDottedOrders(10);
  recent.remember('ws-a', 'run-1', 'order-1');
  expect(recent.get('ws-a', 'run-1')).toBe('order-1');
  expect(recent.get('ws-b', 'run-1')).toBeUndefined();
  expect(recent.get('ws-a', 'run-2')).toBeUndefined();
});

test('the oldest are forgotten first; a workspace with none left is dropped', () => {
  const recent = new RecentDottedOrders(3);
  recent.remember('ws-a', 'run-1', 'order-1');
  recent.remember('ws-b', 'run-2', 'order-2');
  recent.remember('ws-b', 'run-3', 'order-3');
  recent.remember('ws-b', 'run-4', 'order-4');
  expect(recent.get('ws-a', 'run-1')).toBeUndefined();
  expect(recent.workspaces).toBe(1);
  expect(['run-2', 'run-3', 'run-4'].map((id) => recent.get('ws-b', id))).toEqual(['order-2', 'order-3', 'order-4']);
  recent.remember('ws-a', 'run-5', 'order-5');
  expect(recent.get('ws-b', 'run-2')).toBeUndefined();
  expect(recent.get('ws-a', 'run-5')).toBe('order-5');
});

test('a run posted again (a retry) is kept as long as its latest post', () => {
  const recent = new RecentDottedOrders(3);
  recent.remember('ws', 'run-1', 'order-1');
  recent.remember('ws', 'run-2', 'order-2');
  recent.remember('ws', 'run-1', 'order-1b');
  recent.remember('ws', 'run-3', 'order-3'); // takes run-1's first slot
  expect(recent.get('ws', 'run-1')).toBe('order-1b');
  expect(recent.get('ws', 'run-2')).toBe('order-2');
});

test('extendsDottedOrder: the parent, a dot, and more', () => {
  const parent = '20240101T000000000000Zaaaa';
  expect(extendsDottedOrder(`${parent}.20240101T000000000001Zbbbb`, parent)).toBe(true);
  expect(extendsDottedOrder(parent, parent)).toBe(false);
  expect(extendsDottedOrder(`${parent}.`, parent)).toBe(false);
  expect(extendsDottedOrder(`${parent}x.20240101T000000000001Zbbbb`, parent)).toBe(false);
  expect(extendsDottedOrder(`20240101T000000000009Zaaaa.20240101T000000000001Zbbbb`, parent)).toBe(false);
});
