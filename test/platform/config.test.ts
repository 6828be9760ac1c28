// platform/config.ts: every problem of a configuration at once, each naming its variable;
// and README.md's Configuration table names every variable that this schema, the example agent's
// and the local stack's read, with their defaults, so the documentation cannot drift from them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { extraPortDefaults } from '../../infra/config.ts';
import { exampleAgentVariables, loadExampleAgentConfig } from '../../examples/otel-a2a-agent/exampleAgentConfig.ts';
import { chatAppVariables, loadChatAppConfig } from '../../examples/chat-app/chatAppConfig.ts';
import { ConfigError, configVariables, loadConfig } from '../../platform/config.ts';

/** Variable → its "default" cell, from the table under "## Configuration" in README.md. */
function readmeTable(): Map<string, string> {
  const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Configuration\n'), readme.indexOf('\n## ', readme.indexOf('\n## Configuration\n') + 1));
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const [, name, defaultCell] = /^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \|/.exec(line) ?? [];
    if (name !== undefined && defaultCell !== undefined) rows.set(name, defaultCell.trim());
  }
  return rows;
}

/** The default as the table writes it: in backticks, or "empty" (an empty string or list). */
function documented(value: unknown): string {
  return value === '' || (Array.isArray(value) && value.length === 0) ? 'empty' : `\`${String(value)}\``;
}

// Read outside the schemas: by the example chat model (chatModel.ts), the example ADK agent (examples/adk-agent) and the infra scripts' progress output.
const readElsewhere = ['OPENAI_API_KEY', 'OPENAI_MODEL', 'GOOGLE_API_KEY', 'ADK_GEMINI_MODEL', 'INFRA_QUIET'];

test("README's Configuration table names every variable of every schema, with its default", () => {
  const table = readmeTable();
  const platformDefaults: Record<string, unknown> = loadConfig({});
  const exampleAgentDefaults: Record<string, unknown> = loadExampleAgentConfig({});
  const chatAppDefaults: Record<string, unknown> = loadChatAppConfig({});
  const expectations: [string, unknown][] = [
    ...configVariables.map((name): [string, unknown] => [name, platformDefaults[name]]),
    ...exampleAgentVariables.map((name): [string, unknown] => [name, exampleAgentDefaults[name]]),
    // The chat app's LANGSMITH_PROJECT default differs from the example agent's; the table gives the agent's.
    ...chatAppVariables.filter((name) => !exampleAgentVariables.includes(name as never)).map((name): [string, unknown] => [name, chatAppDefaults[name]]),
    ...Object.entries(extraPortDefaults),
  ];
  const missing = expectations.filter(([name]) => !table.has(name)).map(([name]) => name);
  expect([...new Set(missing)]).toEqual([]);
  for (const [name, value] of expectations) {
    if (value !== undefined) expect(table.get(name), `README default of ${name}`).toContain(documented(value));
  }
  // And nothing else: a row for a variable nobody reads any more is stale.
  const known = new Set([...configVariables, ...exampleAgentVariables, ...chatAppVariables, ...Object.keys(extraPortDefaults), ...readElsewhere]);
  expect([...table.keys()].filter((name) => !known.has(name))).toEqual([]);
});

test('a bad configuration is reported whole: every bad variable, each with its rule', () => {
  let error: unknown;
  try {
    loadConfig({ BOOTSTRAP_API_KEY: 'short', TRACING_PORT: 'twenty', AGENT_SERVER_PORT: '70000', KAFKA_PARTITIONS: '0', LOG_LEVEL: 'loud' });
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
