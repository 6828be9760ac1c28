// services/tracing/ingest/ingestRateLimits.ts: the token bucket per workspace, on a clock of the
// test's own (no waiting), and the defaults: basic ingestion limited below batch ingestion.
import { describe, expect, test } from 'vitest';
import { RateLimit } from '../../../../services/tracing/ingest/ingestRateLimits.ts';
import { loadConfig } from '../../../../platform/config.ts';

describe('RateLimit', () => {
  test('takes a burst at once, then one request per interval, and says how long until the next', () => {
    const limit = new RateLimit(2, 3); // 2 a second, bursts of 3
    const t0 = 1_000_000;
    expect([limit.take('a', t0), limit.take('a', t0), limit.take('a', t0)]).toEqual([0, 0, 0]);
    expect(limit.take('a', t0)).toBe(500);
    expect(limit.take('a', t0 + 499)).toBe(1);
    expect(limit.take('a', t0 + 500)).toBe(0);
    expect(limit.take('a', t0 + 500)).toBe(500);
    // A refused request takes nothing: the next is due as before.
    for (let i = 0; i < 100; i++) limit.take('a', t0 + 600);
    expect(limit.take('a', t0 + 1000)).toBe(0);
  });

  test('each key has its own bucket', () => {
    const limit = new RateLimit(1, 1);
    expect(limit.take('a', 0)).toBe(0);
    expect(limit.take('a', 0)).toBe(1000);
    expect(limit.take('b', 0)).toBe(0);
  });

  test('an idle key fills up to the burst, never beyond', () => {
    const limit = new RateLimit(10, 5);
    for (let i = 0; i < 5; i++) expect(limit.take('a', 0)).toBe(0);
    const later = 3_600_000;
    for (let i = 0; i < 5; i++) expect(limit.take('a', later)).toBe(0);
    expect(limit.take('a', later)).toBeGreaterThan(0);
  });

  test('full buckets are dropped from memory', () => {
    const limit = new RateLimit(100, 1);
    for (let i = 0; i < 1000; i++) limit.take(`workspace-${i}`, 0);
    expect(limit.size).toBe(1000);
    limit.take('late', 120_000);
    expect(limit.size).toBe(1);
  });

  test('a rate below one a second works (Retry-After of several seconds)', () => {
    const limit = new RateLimit(0.25, 1);
    expect(limit.take('a', 0)).toBe(0);
    expect(limit.take('a', 1000)).toBe(3000);
  });
});

test('by default, POST /runs and PATCH /runs/{id} are limited below /runs/batch and /runs/multipart', () => {
  const config = loadConfig({});
  expect(config.INGEST_BASIC_RATE_PER_S).toBeGreaterThan(0);
  expect(config.INGEST_BASIC_RATE_PER_S).toBeLessThan(config.INGEST_BATCH_RATE_PER_S);
  expect(config.INGEST_BASIC_BURST).toBeLessThan(config.INGEST_BATCH_BURST);
});
