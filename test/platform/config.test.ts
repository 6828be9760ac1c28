// platform/config.ts: every problem of a configuration at once, each naming its variable;
// and docs/configuration.md names every variable that this schema, the example agent's, the chat
// app's and the local stack's read, with their defaults, and nothing they do not read, so the
// documentation cannot drift from them in either direction.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { extraPortDefaults } from '../../infra/config.ts';
import { exampleAgentVariables, loadExampleAgentConfig } from '../../examples/otel-a2a-agent/exampleAgentConfig.ts';
import { chatAppVariables, loadChatAppConfig } from '../../examples/chat-app/chatAppConfig.ts';
import { ConfigError, configVariables, loadConfig } from '../../platform/config.ts';

const repoRoot = join(import.meta.dirname, '../..');

/** Variable → its "default" cells (a variable two parts read has a row in each part's table), from docs/configuration.md. */
function documentedVariables(): Map<string, string[]> {
  const page = readFileSync(join(repoRoot, 'docs/configuration.md'), 'utf8');
  const rows = new Map<string, string[]>();
  for (const line of page.split('\n')) {
    const [, name, defaultCell] = /^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \|/.exec(line) ?? [];
    if (name !== undefined && defaultCell !== undefined)
      rows.set(name, [...(rows.get(name) ?? []), defaultCell.trim()]);
  }
  return rows;
}

/** The default as the table writes it: in backticks, or "empty" (an empty string or list). */
function documented(value: unknown): string {
  return value === '' || (Array.isArray(value) && value.length === 0) ? 'empty' : `\`${String(value)}\``;
}

/** The TypeScript and shell sources of the product (not its tests), for variables read outside the schemas. */
function productSources(): string {
  const texts: string[] = [];
  for (const top of ['platform', 'services', 'projections', 'schemas', 'infra', 'examples']) {
    for (const entry of readdirSync(join(repoRoot, top), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && /\.(ts|sh)$/.test(entry.name) && !entry.parentPath.includes('node_modules')) {
        texts.push(readFileSync(join(entry.parentPath, entry.name), 'utf8'));
      }
    }
  }
  return texts.join('\n');
}

// Read outside the schemas: by the example chat model (chatModel.ts), the example ADK agent (examples/adk-agent) and the infra scripts' progress output.
const readElsewhere = ['OPENAI_API_KEY', 'OPENAI_MODEL', 'GOOGLE_API_KEY', 'ADK_GEMINI_MODEL', 'INFRA_QUIET'];

test('docs/configuration.md names every variable of every schema, with its default', () => {
  const table = documentedVariables();
  const platformDefaults: Record<string, unknown> = loadConfig({});
  const exampleAgentDefaults: Record<string, unknown> = loadExampleAgentConfig({});
  const chatAppDefaults: Record<string, unknown> = loadChatAppConfig({});
  const expectations: [string, unknown][] = [
    ...configVariables.map((name): [string, unknown] => [name, platformDefaults[name]]),
    ...exampleAgentVariables.map((name): [string, unknown] => [name, exampleAgentDefaults[name]]),
    // The chat app's LANGSMITH_PROJECT default differs from the example agent's; the table gives the agent's.
    ...chatAppVariables
      .filter((name) => !exampleAgentVariables.includes(name as never))
      .map((name): [string, unknown] => [name, chatAppDefaults[name]]),
    ...Object.entries(extraPortDefaults),
  ];
  const missing = expectations.filter(([name]) => !table.has(name)).map(([name]) => name);
  expect([...new Set(missing)]).toEqual([]);
  for (const [name, value] of expectations) {
    if (value !== undefined)
      expect(table.get(name)?.join(' | '), `documented default of ${name}`).toContain(documented(value));
  }
});

test('every variable docs/configuration.md names is read: by a schema, or (the few listed) by the code that needs it', () => {
  const table = documentedVariables();
  expect(table.size).toBeGreaterThan(50);
  const schemas = new Set<string>([
    ...configVariables,
    ...exampleAgentVariables,
    ...chatAppVariables,
    ...Object.keys(extraPortDefaults),
  ]);
  // A row for a variable nobody reads any more is stale.
  expect([...table.keys()].filter((name) => !schemas.has(name) && !readElsewhere.includes(name))).toEqual([]);
  // And the ones read outside a schema are still read somewhere in the product's code.
  const sources = productSources();
  const unread = readElsewhere.filter((name) => !new RegExp(`(?<![A-Z0-9_])${name}(?![A-Z0-9_])`).test(sources));
  expect(unread).toEqual([]);
  for (const name of readElsewhere) expect(table.has(name), `${name} is documented`).toBe(true);
});

test('a bad configuration is reported whole: every bad variable, each with its rule', () => {
  let error: unknown;
  try {
    loadConfig({
      BOOTSTRAP_API_KEY: 'short',
      TRACING_PORT: 'twenty',
      AGENT_SERVER_PORT: '70000',
      KAFKA_PARTITIONS: '0',
      LOG_LEVEL: 'loud',
    });
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).problems).toEqual([
    'TRACING_PORT: a TCP port: 0-65535 (0: any free port)',
    expect.stringMatching(/^LOG_LEVEL: /),
    expect.stringMatching(/^KAFKA_PARTITIONS: /),
    'BOOTSTRAP_API_KEY: must be at least 16 characters',
    'AGENT_SERVER_PORT: a TCP port: 0-65535 (0: any free port)',
  ]);
  expect((error as Error).message).toMatch(/^Invalid configuration:\n {2}TRACING_PORT: /);
});
