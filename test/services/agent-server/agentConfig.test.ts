// The langgraph.json-format config file: graphs as paths or objects, env as a map or a .env
// file, auth and http switches; a bad file is refused with the field named.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgentConfig } from '../../../services/agent-server/agentConfig.ts';
import { assistantIdForGraph } from '../../../services/agent-server/graphRegistry.ts';

function configFile(content: unknown, extraFiles: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-config-test-'));
  for (const [name, text] of Object.entries(extraFiles)) writeFileSync(join(dir, name), text);
  const file = join(dir, 'langgraph.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('loadAgentConfig', () => {
  it('resolves graph paths and export names from the file’s directory', () => {
    const file = configFile({
      graphs: { agent: './src/agent.ts:graph', other: { path: 'other.ts', description: 'the other one' } },
      auth: { path: './auth.ts:myAuth' },
      http: { disable_a2a: true },
    });
    const dir = join(file, '..');
    const config = loadAgentConfig(file);
    expect(config.graphs).toEqual([
      { graphId: 'agent', file: join(dir, 'src/agent.ts'), exportName: 'graph', description: undefined },
      { graphId: 'other', file: join(dir, 'other.ts'), exportName: 'default', description: 'the other one' },
    ]);
    expect(config.auth).toEqual({ file: join(dir, 'auth.ts'), exportName: 'myAuth' });
    expect(config.http).toEqual({
      disableA2a: true,
      disableAssistants: false,
      disableThreads: false,
      disableRuns: false,
      disableMeta: false,
      disableMcp: false,
      disableStore: false,
      disableWebhooks: false,
    });
  });

  it('reads http.disable_webhooks (runs’ webhooks accepted, never called)', () => {
    const file = configFile({ graphs: { a: './a.ts:g' }, http: { disable_webhooks: true } });
    expect(loadAgentConfig(file).http.disableWebhooks).toBe(true);
  });

  it('reads env from a map or from a .env file', () => {
    expect(loadAgentConfig(configFile({ graphs: { a: './a.ts:g' }, env: { X: '1' } })).env).toEqual({ X: '1' });
    const fromFile = loadAgentConfig(
      configFile({ graphs: { a: './a.ts:g' }, env: '.env' }, { '.env': 'A=one\n# comment\nB="two words"\n' }),
    );
    expect(fromFile.env).toEqual({ A: 'one', B: 'two words' });
    expect(fromFile.missingEnvFile).toBeUndefined();
  });

  it('takes a .env file that is not there as no env, and says which file it missed', () => {
    // As `langgraph new` lays a project out ("env": ".env", .env in .gitignore): the CLIs upload
    // the source without it and send its variables as the deployment's secrets.
    const file = configFile({ graphs: { a: './a.ts:g' }, env: '.env' });
    const config = loadAgentConfig(file);
    expect(config.env).toEqual({});
    expect(config.missingEnvFile).toBe(join(file, '..', '.env'));
  });

  it('refuses a bad file with the field named', () => {
    expect(() => loadAgentConfig(configFile('{not json'))).toThrow(/cannot read the agent server config/);
    expect(() => loadAgentConfig(configFile({ graphs: {} }))).toThrow(/graphs: at least one graph/);
    expect(() => loadAgentConfig(configFile({ graphs: { a: './a.ts:g' }, http: { disable_a2a: 'yes' } }))).toThrow(
      /http\.disable_a2a/,
    );
    expect(() => loadAgentConfig(configFile({ graphs: { 'bad name!': './a.ts' } }))).toThrow(/graphs/);
  });

  it('reads the store’s index and TTLs (LangGraph CLI’s StoreConfig), with LangGraph’s defaults', () => {
    const file = configFile({
      graphs: { a: './a.ts:g' },
      store: {
        index: { embed: './embed.ts:embed', dims: 8, fields: ['text'] },
        ttl: { refresh_on_read: false, default_ttl: 60, sweep_interval_minutes: 2 },
      },
      http: { disable_store: true },
    });
    const config = loadAgentConfig(file);
    expect(config.store).toEqual({
      index: { embed: { file: join(file, '..', 'embed.ts'), exportName: 'embed' }, dims: 8, fields: ['text'] },
      ttl: { refreshOnRead: false, defaultTtlMinutes: 60, sweepIntervalMinutes: 2 },
    });
    expect(config.http.disableStore).toBe(true);
    expect(loadAgentConfig(configFile({ graphs: { a: './a.ts:g' } })).store).toEqual({
      ttl: { refreshOnRead: true, defaultTtlMinutes: null, sweepIntervalMinutes: 5 },
    });
    const provider = loadAgentConfig(
      configFile({
        graphs: { a: './a.ts:g' },
        store: { index: { embed: 'openai:text-embedding-3-small', dims: 1536 } },
      }),
    );
    expect(provider.store.index).toEqual({
      embed: { provider: 'openai', model: 'text-embedding-3-small' },
      dims: 1536,
      fields: ['$'],
    });
    expect(() =>
      loadAgentConfig(configFile({ graphs: { a: './a.ts:g' }, store: { index: { embed: 'x.ts:e', dims: 0 } } })),
    ).toThrow(/store\.index\.dims/);
    expect(() =>
      loadAgentConfig(configFile({ graphs: { a: './a.ts:g' }, store: { ttl: { default_ttl: -1 } } })),
    ).toThrow(/store\.ttl\.default_ttl/);
    expect(() =>
      loadAgentConfig(configFile({ graphs: { a: './a.ts:g' }, checkpointer: { ttl: { default_ttl: 1e12 } } })),
    ).toThrow(/checkpointer\.ttl\.default_ttl/);
  });

  it('gives assistants the LangGraph server’s ids (uuid5 of the graph id)', () => {
    expect(assistantIdForGraph('agent')).toBe('fe096781-5601-53d2-b2f6-0d3403f7e9ca');
  });
});
