// The agent server's configuration file, in the `langgraph.json` format of the LangGraph CLI:
// which graphs to serve, environment for them, a custom auth module, and HTTP switches.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';

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
  http: z
    .looseObject({
      disable_a2a: z.boolean().default(false),
      disable_assistants: z.boolean().default(false),
      disable_threads: z.boolean().default(false),
      disable_runs: z.boolean().default(false),
      disable_meta: z.boolean().default(false),
    })
    .prefault({}),
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
  http: {
    disableA2a: boolean;
    disableAssistants: boolean;
    disableThreads: boolean;
    disableRuns: boolean;
    disableMeta: boolean;
  };
}

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
    http: {
      disableA2a: file.http.disable_a2a,
      disableAssistants: file.http.disable_assistants,
      disableThreads: file.http.disable_threads,
      disableRuns: file.http.disable_runs,
      disableMeta: file.http.disable_meta,
    },
  };
}
