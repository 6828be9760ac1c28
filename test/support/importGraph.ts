// The project's import graph, and the layering rules it must keep (test/architecture/
// dependencyRules.test.ts). Imports are read from the source text: every static `import … from`,
// `export … from`, side-effect `import '…'` and literal `import('…')`, type-only ones included
// (a type import upward is still an arrow pointing the wrong way).
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

/** An import of one project file by another, as paths relative to the repository root. */
export interface ImportEdge {
  from: string;
  to: string;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm;

/** The project-relative imports of one file's source. */
export function importsOf(file: string, source: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const m of source.matchAll(SPECIFIER))
    edges.push({ from: file, to: posix.normalize(posix.join(posix.dirname(file), m[1]!)) });
  return edges;
}

const BARE_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'([^.'/][^']*)'/gm;

/** The npm packages a source imports (`@scope/name` or `name`), type-only imports excepted: they vanish at run time. */
export function packagesOf(source: string): string[] {
  const out = new Set<string>();
  for (const m of source.replace(/^\s*import\s+type\s[^;]*;/gm, '').matchAll(BARE_SPECIFIER)) {
    const spec = m[1]!;
    if (spec.startsWith('node:')) continue;
    const parts = spec.split('/');
    out.add(spec.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  return [...out];
}

/** Every .ts file under the given top-level folders, as repository-relative paths. */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      return; // a folder this checkout does not have
    }
    for (const e of entries) {
      const path = posix.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules') walk(path);
      } else if (/\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const f of folders) walk(f);
  return out.sort();
}

export function importGraph(root: string, folders: readonly string[]): ImportEdge[] {
  return sourceFiles(root, folders).flatMap((file) => importsOf(file, readFileSync(join(root, file), 'utf8')));
}

/**
 * Where a file sits in the layering. Bottom to top: schemas (the declaration of every topic and
 * event), platform (adapters and mechanics shared by every process), projections (read models:
 * DDL, projectors, queries), services/<context> (bounded contexts), services/processes/ (each
 * process's composition root: it composes the contexts' plugins) and services/*.ts (npm start's
 * launcher, which starts those processes). examples/ and apps/ sit on top, apart.
 */
export type Layer =
  | { kind: 'schemas' | 'platform' | 'projections' | 'compositionRoot' | 'examples' | 'apps' | 'infra' | 'other' }
  | { kind: 'context'; context: string };

export function layerOf(file: string): Layer {
  const [top, second, third] = file.split('/');
  if (top === 'services')
    return third === undefined || second === 'processes'
      ? { kind: 'compositionRoot' }
      : { kind: 'context', context: second! };
  if (
    top === 'schemas' ||
    top === 'platform' ||
    top === 'projections' ||
    top === 'examples' ||
    top === 'apps' ||
    top === 'infra'
  )
    return { kind: top };
  return { kind: 'other' };
}

/** A context's public module: the one file of it that others may import. */
export const publicModule = (context: string): string => `services/${context}/index.ts`;

/**
 * An agent-server adapter (services/agent-server/adapters/<framework>/): what user graph code
 * imports to serve another framework's agent (`wrap(runner)` for ADK), as one imports LangGraph.
 * Its public module is open to examples; the adapter itself stays apart from the server's
 * internals, so that user code importing it loads nothing of the server.
 */
const ADAPTER = /^services\/agent-server\/adapters\/([^/]+)\//;
export const isAdapterModule = (file: string): boolean =>
  /^services\/agent-server\/adapters\/[^/]+\/index\.ts$/.test(file);

/**
 * A context's HTTP surface: its Fastify plugins (and the parts a process wires them with). Only
 * process roots (services/processes/) import it, and the example chat app tenancy's and the agent
 * server's (which it embeds).
 */
export const pluginModule = (context: string): string => `services/${context}/plugins.ts`;

/**
 * The modules of a context that only process roots import: its plugins, and its worker
 * (services/<context>/worker.ts, apart when a process that registers the routes need not load it).
 */
export const isProcessModule = (file: string): boolean =>
  /^services\/(?!processes\/)[^/]+\/(?:plugins|worker)\.ts$/.test(file);

/**
 * Inside projections/: each read model's folder (projections/<model>/: runs, traces, threads,
 * feedback, projects) owns its DDL, rows, writes and queries, and imports the platform, the
 * schemas, its own folder and the shared pieces (projections/shared/) only, never another model
 * nor the top of projections/. The shared pieces sit below every model. The top of projections/
 * (and the replay, in its folder) composes the models: every table, the projectors, the replay.
 */
export const PROJECTIONS_SHARED = 'projections/shared/';
const PROJECTIONS_COMPOSITION_FOLDERS: ReadonlySet<string> = new Set(['replay']);

/** The read model a file of projections/ belongs to; undefined for the top, the replay and the shared pieces. */
export function readModelOf(file: string): string | undefined {
  const [top, folder, rest] = file.split('/');
  if (top !== 'projections' || rest === undefined || file.startsWith(PROJECTIONS_SHARED)) return undefined;
  return PROJECTIONS_COMPOSITION_FOLDERS.has(folder!) ? undefined : folder;
}

/** The rule an import within projections/ breaks, or null. */
function projectionsRule(edge: ImportEdge): string | null {
  const to = layerOf(edge.to).kind;
  if (to === 'schemas' || to === 'platform') return null;
  if (to !== 'projections')
    return 'a projection imports no service (contexts use projections, not the other way round)';
  if (edge.from.startsWith(PROJECTIONS_SHARED))
    return edge.to.startsWith(PROJECTIONS_SHARED)
      ? null
      : `${PROJECTIONS_SHARED} imports no read model and nothing of the top of projections/ (it sits below them)`;
  const model = readModelOf(edge.from);
  if (model === undefined || edge.to.startsWith(PROJECTIONS_SHARED) || edge.to.startsWith(`projections/${model}/`))
    return null;
  return `a read model (projections/${model}/) imports only platform/, schemas/, its own folder and ${PROJECTIONS_SHARED}; not ${edge.to}`;
}

/** The rule an import breaks, or null when it keeps them all. */
export function brokenRule(edge: ImportEdge): string | null {
  const from = layerOf(edge.from);
  const to = layerOf(edge.to);
  const may = (...kinds: Layer['kind'][]) => kinds.includes(to.kind);
  switch (from.kind) {
    case 'schemas':
      return may('schemas') ? null : 'schemas/ declares topics and events and imports nothing else of ours';
    case 'platform':
      return may('schemas', 'platform') ? null : 'the platform layer imports no context, projection or process';
    case 'projections':
      return projectionsRule(edge);
    case 'context': {
      const adapter = ADAPTER.exec(edge.from)?.[1];
      if (adapter !== undefined)
        return may('schemas', 'platform') || ADAPTER.exec(edge.to)?.[1] === adapter
          ? null
          : 'an agent-server adapter imports the platform at most, nothing of the server (user code imports it)';
      if (may('schemas', 'platform', 'projections')) return null;
      if (to.kind !== 'context') return `a context imports only the layers below it, not ${to.kind}`;
      if (to.context === from.context || edge.to === publicModule(to.context)) return null;
      return `a context reaches into another's internals: import ${publicModule(to.context)} instead`;
    }
    case 'compositionRoot':
      // services/main.ts starts the local stack (infra/) and the example agents too (examples/).
      if (may('schemas', 'platform', 'projections', 'infra', 'compositionRoot', 'examples')) return null;
      return to.kind === 'context' && (edge.to === publicModule(to.context) || isProcessModule(edge.to))
        ? null
        : `a process is composed from contexts' public modules (services/<context>/index.ts, plugins.ts, worker.ts)`;
    case 'examples':
      // An app on the platform signs its callers in with the platform's API keys (the chat app), and serves
      // tenancy's workspace routes; it may run the agent server in its own process (the chat app serves the
      // agent streaming protocol through the agent server's implementation).
      return may('examples', 'platform') ||
        isAdapterModule(edge.to) ||
        edge.to === publicModule('tenancy') ||
        edge.to === pluginModule('tenancy') ||
        edge.to === pluginModule('agent-server')
        ? null
        : "an example uses the platform, the agent server's adapters and plugins and the tenancy context's public modules at most, never another context or a projection";
    case 'apps':
      return may('apps') ? null : 'browser code imports nothing from the server side';
    case 'infra':
      // The local stack shares the platform's mechanics (the port checks), nothing of the product.
      return may('infra', 'platform')
        ? null
        : 'infra/ (provisioning) imports the platform at most, nothing of the product';
    default:
      return null;
  }
}

export interface Violation extends ImportEdge {
  rule: string;
}

export function violations(edges: readonly ImportEdge[]): Violation[] {
  return edges.flatMap((e) => {
    const rule = brokenRule(e);
    return rule ? [{ ...e, rule }] : [];
  });
}

/** The folders the rules govern. */
export const GOVERNED_FOLDERS = [
  'schemas',
  'platform',
  'projections',
  'services',
  'examples',
  'apps',
  'infra',
] as const;

// ---- Composition at the top: only a process root composes contexts' plugins ----
// A context reaches another only through its index.ts, which carries no route plugin; the plugins
// are in the context's plugins.ts (its worker, if apart, in worker.ts), and a process root
// (services/processes/) registers them.
// Plugins are told by name: the contexts' route plugins and registrars are all `…Routes`
// (tracingRoutes, bulkExportRoutes, workspaceRoutes, deploymentRoutes…).

const ROUTE_PLUGIN = /Routes$/;
const NAMED_SPECIFIER = /\b(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'(\.{1,2}\/[^']+)'/g;

/** An import (or re-export) of named bindings, with the names on both sides of each `as`. */
export interface NamedImport extends ImportEdge {
  names: string[];
}

export function namedImportsOf(file: string, source: string): NamedImport[] {
  return [...source.matchAll(NAMED_SPECIFIER)].map((m) => ({
    from: file,
    to: posix.normalize(posix.join(posix.dirname(file), m[2]!)),
    names: m[1]!
      .split(',')
      .flatMap((binding) => binding.replace(/^\s*type\s+/, '').split(/\s+as\s+/))
      .map((name) => name.trim())
      .filter(Boolean),
  }));
}

/** The composition rule an import breaks, or null. */
export function compositionRule(edge: NamedImport): string | null {
  const from = layerOf(edge.from);
  const to = layerOf(edge.to);
  if (from.kind !== 'context' || to.kind !== 'context') return null;
  const plugins = edge.names.filter((name) => ROUTE_PLUGIN.test(name));
  if (to.context === from.context)
    return edge.from === publicModule(from.context) && plugins.length
      ? `a context's index.ts carries no route plugin (${plugins.join(', ')}): its plugins are in ${pluginModule(from.context)}, for process roots`
      : null;
  if (isProcessModule(edge.to) || plugins.length)
    return `a context composes no other context's plugins (${plugins.join(', ') || edge.to}): only a process root (services/processes/) does`;
  return null;
}

export function compositionViolations(root: string, folders: readonly string[]): Violation[] {
  return sourceFiles(root, folders).flatMap((file) =>
    namedImportsOf(file, readFileSync(join(root, file), 'utf8')).flatMap((edge) => {
      const rule = compositionRule(edge);
      return rule ? [{ from: edge.from, to: edge.to, rule }] : [];
    }),
  );
}
