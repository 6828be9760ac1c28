// The agent server's configuration file, in the `langgraph.json` format of the LangGraph CLI:
// which graphs to serve, environment for them, a custom auth module, HTTP switches, and the
// long-term store (semantic search index, TTLs).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';

/** The longest TTL (minutes) of a thread or a store item: 10^9 minutes, about 1,900 years (a date JavaScript and PostgreSQL both hold). */
export const MAX_TTL_MINUTES = 1e9;
const ttlMinutes = z.number().positive().max(MAX_TTL_MINUTES);

const graphSpec = z.union([
  z.string().regex(/^[^:]+(:[A-Za-z_$][\w$]*)?$/, 'a "path/to/file.ts:exportName" string'),
  z.object({ path: z.string(), description: z.string().optional() }),
]);

const fileSchema = z.looseObject({
  graphs: z
    .record(z.string().regex(/^[\w.-]+$/, 'letters, digits, ".", "_" and "-"'), graphSpec)
    .refine((g) => Object.keys(g).length > 0, 'at least one graph'),
  env: z.union([z.record(z.string(), z.string()), z.string()]).optional(),
  auth: z.looseObject({ path: z.string().optional(), disable_studio_auth: z.boolean().optional() }).optional(),
  checkpointer: z
    .looseObject({
      ttl: z
        .looseObject({
          strategy: z.enum(['delete', 'keep_latest']).default('delete'),
          default_ttl: ttlMinutes.optional(),
          sweep_interval_minutes: z.number().positive().default(5),
        })
        .optional(),
    })
    .optional(),
  http: z
    .looseObject({
      disable_a2a: z.boolean().default(false),
      disable_assistants: z.boolean().default(false),
      disable_threads: z.boolean().default(false),
      disable_runs: z.boolean().default(false),
      disable_meta: z.boolean().default(false),
      disable_mcp: z.boolean().default(false),
      disable_store: z.boolean().default(false),
      disable_webhooks: z.boolean().default(false),
    })
    .prefault({}),
  // The long-term store (longTermStore/): semantic search where `index` is given, and TTLs, in
  // the LangGraph CLI's format (langgraph_cli/schemas.py StoreConfig).
  store: z
    .looseObject({
      index: z
        .looseObject({
          embed: z.string().min(1, 'a "path/to/module.ts:export" or "openai:<model>"'),
          dims: z.number().int().positive(),
          fields: z.array(z.string().min(1)).min(1).nullish(),
        })
        .nullish(),
      ttl: z
        .looseObject({
          refresh_on_read: z.boolean().default(true),
          default_ttl: ttlMinutes.nullish(),
          sweep_interval_minutes: z.number().positive().nullish(),
        })
        .nullish(),
    })
    .nullish(),
});

export interface GraphEntry {
  graphId: string;
  /** Absolute path of the module that exports the graph. */
  file: string;
  exportName: string;
  description?: string;
}

export interface AgentServerConfig {
  /** The directory of the config file; relative paths in it are resolved from here. */
  dir: string;
  graphs: GraphEntry[];
  env: Record<string, string>;
  /**
   * The absolute path of the .env file `env` names when it is not there (then `env` is empty):
   * `langgraph new` projects name `.env` and keep it out of git, and the CLIs upload the source
   * without it, sending its variables as the deployment's secrets instead.
   */
  missingEnvFile?: string;
  /** `path/to/auth.ts:exportName` resolved to a file and export, when the file names one. */
  auth?: { file: string; exportName: string };
  /**
   * `checkpointer.ttl`: the TTL of threads created without one (minutes; none when absent), its
   * strategy, and how often expired threads are swept (minutes, default 5).
   */
  threadTtl: { strategy: 'delete' | 'keep_latest'; defaultMinutes?: number; sweepIntervalMinutes: number };
  http: {
    disableA2a: boolean;
    disableAssistants: boolean;
    disableThreads: boolean;
    disableRuns: boolean;
    disableMeta: boolean;
    disableMcp: boolean;
    disableStore: boolean;
    /** Runs' `webhook` is accepted and never called. */
    disableWebhooks: boolean;
  };
  store: StoreConfig;
}

/** The config file's `store`: how items are embedded for semantic search (none: `query` is ignored), and TTLs. */
export interface StoreConfig {
  index?: {
    /** A module's export (an embeddings object or a function of texts), or a provider's model. */
    embed: { file: string; exportName: string } | { provider: string; model: string };
    dims: number;
    /** JSON paths of what is embedded of each value; `$` is the whole value. */
    fields: string[];
  };
  ttl: {
    /** Whether reads (get, search) restart an item's TTL unless the request says. */
    refreshOnRead: boolean;
    /** Minutes an item lives when its put names no TTL; null: forever. */
    defaultTtlMinutes: number | null;
    /** Minutes between deletions of expired items. */
    sweepIntervalMinutes: number;
  };
}

/** How often expired store items are deleted when the config file does not say. */
export const DEFAULT_STORE_SWEEP_MINUTES = 5;

/** A module path (it names a file: a separator, or a script extension before the export) rather than a provider's model. */
const isModuleRef = (ref: string) => /[\\/]/.test(ref) || /\.[cm]?[jt]sx?(:|$)/.test(ref);

function splitModuleRef(dir: string, ref: string): { file: string; exportName: string } {
  const [file, exportName] = ref.split(':', 2) as [string, string | undefined];
  return { file: resolve(dir, file), exportName: exportName ?? 'default' };
}

/** Reads and checks a langgraph.json file; a bad file stops start-up with a message naming the field. */
export function loadAgentConfig(path: string): AgentServerConfig {
  const absolute = resolve(path);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(absolute, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read the agent server config ${absolute}: ${(err as Error).message}`);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n');
    throw new Error(`invalid agent server config ${absolute}:\n${problems}`);
  }
  const dir = dirname(absolute);
  const file = parsed.data;
  const graphs = Object.entries(file.graphs).map(([graphId, spec]) => {
    const ref = typeof spec === 'string' ? spec : spec.path;
    return {
      graphId,
      ...splitModuleRef(dir, ref),
      description: typeof spec === 'string' ? undefined : spec.description,
    };
  });
  const envFile = typeof file.env === 'string' ? resolve(dir, file.env) : undefined;
  const missingEnvFile = envFile !== undefined && !existsSync(envFile) ? envFile : undefined;
  const env = envFile === undefined ? (file.env ?? {}) : missingEnvFile ? {} : parseEnv(readFileSync(envFile, 'utf8'));
  return {
    dir,
    graphs,
    env: env as Record<string, string>,
    ...(missingEnvFile ? { missingEnvFile } : {}),
    auth: file.auth?.path ? splitModuleRef(dir, file.auth.path) : undefined,
    threadTtl: {
      strategy: file.checkpointer?.ttl?.strategy ?? 'delete',
      ...(file.checkpointer?.ttl?.default_ttl ? { defaultMinutes: file.checkpointer.ttl.default_ttl } : {}),
      sweepIntervalMinutes: file.checkpointer?.ttl?.sweep_interval_minutes ?? 5,
    },
    http: {
      disableA2a: file.http.disable_a2a,
      disableAssistants: file.http.disable_assistants,
      disableThreads: file.http.disable_threads,
      disableRuns: file.http.disable_runs,
      disableMeta: file.http.disable_meta,
      disableMcp: file.http.disable_mcp,
      disableStore: file.http.disable_store,
      disableWebhooks: file.http.disable_webhooks,
    },
    store: storeConfig(dir, file.store),
  };
}

function storeConfig(dir: string, store: z.infer<typeof fileSchema>['store']): StoreConfig {
  const index = store?.index;
  const embed = (ref: string) => {
    if (isModuleRef(ref)) return splitModuleRef(dir, ref);
    const [provider, model] = ref.split(':', 2) as [string, string | undefined];
    return { provider, model: model ?? '' };
  };
  return {
    ...(index ? { index: { embed: embed(index.embed), dims: index.dims, fields: index.fields ?? ['$'] } } : {}),
    ttl: {
      refreshOnRead: store?.ttl?.refresh_on_read ?? true,
      defaultTtlMinutes: store?.ttl?.default_ttl ?? null,
      sweepIntervalMinutes: store?.ttl?.sweep_interval_minutes ?? DEFAULT_STORE_SWEEP_MINUTES,
    },
  };
}
