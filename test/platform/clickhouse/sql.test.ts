import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { literal, sql, ident } from '../../../platform/clickhouse/sql.ts';
import { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import { provideInfra } from '../../support/infra.ts';

describe('sql literal binder', () => {
  test('quotes and escapes strings', () => {
    expect(literal("it's \\ fine\n")).toBe("'it\\'s \\\\ fine\\n'");
    expect(sql`SELECT ${'x'}, ${1}, ${null}, ${[1, 'a']}, ${true}`.text).toBe("SELECT 'x', 1, NULL, [1, 'a'], 1");
  });

  test('refuses what it cannot bind safely', () => {
    expect(() => literal(Number.NaN)).toThrow();
    expect(() => literal(Infinity)).toThrow();
    expect(() => literal(5e-324)).toThrow(/subnormal/);
    expect(literal(2.2250738585072014e-308)).toBe('2.2250738585072014e-308');
    expect(() => ident('runs; DROP TABLE x')).toThrow();
    expect(ident('db.runs').text).toBe('`db`.`runs`');
  });

  test('fuzz: every string survives a round trip through real ClickHouse unchanged', async () => {
    const infra = await provideInfra();
    const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database: 'system' });
    const valid = (s: string) => Buffer.from(s, 'utf8').toString('utf8') === s;
    const samples = fc
      .sample(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 40 }),
          fc.string({
            unit: fc.constantFrom(
              "'",
              '\\',
              '\n',
              '\r',
              '\t',
              '\0',
              '\x1b',
              '"',
              '`',
              ';',
              '--',
              '/*',
              '%',
              '{',
              '}',
              'é',
              '😀',
            ),
            maxLength: 30,
          }),
        ),
        { numRuns: 400, seed: 42 },
      )
      .filter(valid);
    const rows = await ch.query<{ i: string; v: string }>(
      sql`SELECT i, v FROM (SELECT arrayJoin(arrayEnumerate(${samples})) AS i, ${samples}[i] AS v) ORDER BY i`,
    );
    expect(rows.map((r) => r.v)).toEqual(samples);
    // Numbers too, including the edges of safe integers.
    const numbers = [0, -1, 1.5, 2 ** 53 - 1, -(2 ** 53 - 1), 1e-7, 123456789.125];
    for (const n of numbers) {
      const [row] = await ch.query<{ v: string | number }>(sql`SELECT ${n} AS v`);
      expect(Number(row!.v)).toBe(n);
    }
    await ch.close();
  });
});
