// The arrows point down: schemas ← platform ← projections ← services/<context> ← services/processes/
// (the processes' composition roots) and services/*.ts (npm start), each context reached by others
// only through its public module (services/<context>/index.ts), its plugins (plugins.ts) composed
// by the process roots alone.
// Within projections/, each read model's folder stands on projections/shared/ alone, and the top
// composes them. The rules are in test/support/importGraph.ts.
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import {
  brokenRule,
  GOVERNED_FOLDERS,
  importGraph,
  importsOf,
  packagesOf,
  sourceFiles,
  violations,
} from '../support/importGraph.ts';
import { compositionRule, compositionViolations, namedImportsOf } from '../support/importGraph.ts';
import { repoRoot } from '../support/serviceProcess.ts';

test('every import of the product keeps the layering', () => {
  const edges = importGraph(repoRoot, GOVERNED_FOLDERS);
  expect(edges.length).toBeGreaterThan(500); // the graph was read, not an empty walk
  const broken = violations(edges).map((v) => `${v.from} → ${v.to}: ${v.rule}`);
  expect(broken).toEqual([]);
});

describe('the rules refuse what they are meant to refuse', () => {
  const verdict = (from: string, source: string) => importsOf(from, source).map(brokenRule);

  test('the platform importing a projection or a context', () => {
    expect(
      verdict(
        'platform/clickhouse/schema.ts',
        "import { createRunsTable } from '../../projections/runs/runsTable.ts';",
      )[0],
    ).toMatch(/platform layer/);
    expect(
      verdict('platform/http/server.ts', "import type { TenancyService } from '../../services/tenancy/index.ts';")[0],
    ).toMatch(/platform layer/);
  });

  test('a projection importing a service', () => {
    expect(
      verdict(
        'projections/projectorMain.ts',
        "import { ProjectRegistry } from '../services/tracing/projects/projectRegistry.ts';",
      )[0],
    ).toMatch(/projection imports no service/);
  });

  test('a read model importing another model or the top of projections/ (the layout before issue 33 broke it)', () => {
    // The imports across projections/ of the layout before the read models owned their folders:
    // the runs projector wrote the traces' tables, trace rows were computed from run rows, the
    // feedback took run helpers, and the models named their tables through the registry above them.
    const oldLayout: Array<[string, string]> = [
      ['projections/runs/runsProjector.ts', "import { TRACES_COLUMNS } from '../traces/tracesTable.ts';"],
      ['projections/runs/runsProjector.ts', "import { hourReach, threadRow } from '../traces/threadTables.ts';"],
      [
        'projections/runs/runsProjector.ts',
        "import { LIVE_TABLES, type ReadModelTables } from '../readModelTables.ts';",
      ],
      ['projections/runs/runsProjector.ts', "import { ProjectorRuntime } from '../projectorRuntime.ts';"],
      ['projections/traces/traceRow.ts', "import type { RunRow } from '../runs/runRow.ts';"],
      ['projections/traces/traceQueries.ts', "import { runsOfTraces } from '../runs/runsTable.ts';"],
      ['projections/traces/threadQueries.ts', "import { usageFromRow, type Usage } from '../runs/derivedFields.ts';"],
      ['projections/feedback/feedbackProjector.ts', "import { opVersion, ZERO_UUID } from '../runs/runRow.ts';"],
      ['projections/feedback/feedbackQueries.ts', "import { traceSetSource } from '../traces/statsQueries.ts';"],
      [
        'projections/runs/runQueries.ts',
        "export { feedbackStatsQuery, type FeedbackStat } from '../feedback/feedbackQueries.ts';",
      ],
      ['projections/traces/statsQueries.ts', "import { copyUsable } from '../copiesUpgrade.ts';"],
    ];
    for (const [file, source] of oldLayout)
      expect(verdict(file, source)[0], `${file}: ${source}`).toMatch(
        /a read model \(projections\/\w+\/\) imports only platform\/, schemas\/, its own folder and projections\/shared\//,
      );
    // The shared pieces sit below every model: they import none.
    expect(verdict('projections/shared/traceRow.ts', "import type { RunRow } from '../runs/runRow.ts';")[0]).toMatch(
      /projections\/shared\/ imports no read model/,
    );
    expect(verdict('projections/shared/copies.ts', "import { LIVE_TABLES } from '../readModelTables.ts';")[0]).toMatch(
      /projections\/shared\/ imports no read model/,
    );
  });

  test('a read model may import its own folder, the shared pieces, the platform and the schemas; the top composes every model', () => {
    const source = `import { RunsWriter } from './runsWriter.ts';
import { rowBinaryColumns } from '../../platform/clickhouse/rowBinary.ts';
import type { RunOp } from '../../schemas/events.generated.ts';
import { ZERO_UUID } from '../shared/runRow.ts';
import { parseFilter } from './filter/filterParser.ts';`;
    expect(verdict('projections/runs/runQueries.ts', source)).toEqual([null, null, null, null, null]);
    expect(
      verdict('projections/runs/filter/filterSql.ts', "import { RUN_KEY_COLUMNS } from '../runsTable.ts';"),
    ).toEqual([null]);
    expect(
      verdict(
        'projections/runsProjector.ts',
        "import { TracesWriter } from './traces/tracesWriter.ts';\nimport { ThreadsWriter } from './threads/threadsWriter.ts';",
      ),
    ).toEqual([null, null]);
    expect(
      verdict('projections/replay/replay.ts', "import { FeedbackProjector } from '../feedback/feedbackProjector.ts';"),
    ).toEqual([null]);
  });

  test("a context reaching into another's internals, and the same through its public module", () => {
    const source = `import {
  ExportCommands,
} from '../bulk-export/exportCommands.ts';
import { bulkExportRoutes } from '../bulk-export/index.ts';`;
    expect(verdict('services/tracing/tracingApp.ts', source)).toEqual([expect.stringMatching(/internals/), null]);
  });

  test('dynamic and side-effect imports count too', () => {
    expect(
      verdict(
        'schemas/registry.ts',
        "const m = await import('../platform/config.ts');\nimport '../platform/logger.ts';",
      ),
    ).toEqual([expect.stringMatching(/schemas/), expect.stringMatching(/schemas/)]);
  });

  test("an example may import an agent-server adapter's public module, and the adapter nothing of the server", () => {
    expect(
      verdict(
        'examples/adk-agent/echoAgent.ts',
        "import { wrap } from '../../services/agent-server/adapters/adk/index.ts';",
      ),
    ).toEqual([null]);
    expect(
      verdict(
        'examples/adk-agent/echoAgent.ts',
        "import { wrap } from '../../services/agent-server/adapters/adk/wrap.ts';",
      )[0],
    ).toMatch(/example/);
    expect(
      verdict(
        'services/agent-server/adapters/adk/wrap.ts',
        "import { GraphRegistry } from '../../graphRegistry.ts';",
      )[0],
    ).toMatch(/adapter/);
    expect(
      verdict(
        'services/agent-server/adapters/adk/wrap.ts',
        "import { x } from './checkpointSessionService.ts';\nimport { y } from '../../../../platform/logger.ts';",
      ),
    ).toEqual([null, null]);
  });

  test("an example may sign callers in through the tenancy context's public module, not through its internals", () => {
    expect(
      verdict('examples/chat-app/chatApp.ts', "import { requireApiKey } from '../../services/tenancy/index.ts';"),
    ).toEqual([null]);
    expect(
      verdict(
        'examples/chat-app/chatApp.ts',
        "import { requireApiKey } from '../../services/tenancy/apiKeyAuth.ts';",
      )[0],
    ).toMatch(/example/);
    expect(verdict('examples/chat-app/chatApp.ts', "import { x } from '../../services/tracing/index.ts';")[0]).toMatch(
      /example/,
    );
  });

  test('an example may embed the agent server through its plugins module, not through its internals', () => {
    expect(
      verdict(
        'examples/chat-app/chatApp.ts',
        "import { embeddedAgentServer } from '../../services/agent-server/plugins.ts';",
      ),
    ).toEqual([null]);
    expect(
      verdict(
        'examples/chat-app/chatApp.ts',
        "import { ProtocolService } from '../../services/agent-server/protocol/protocolService.ts';",
      )[0],
    ).toMatch(/example/);
    expect(
      verdict('examples/chat-app/chatApp.ts', "import { x } from '../../services/deployments/plugins.ts';")[0],
    ).toMatch(/example/);
  });

  test('browser code and examples stay apart from the server', () => {
    expect(verdict('apps/ui/main.ts', "import type { Config } from '../../platform/config.ts';")[0]).toMatch(/browser/);
    expect(
      verdict(
        'examples/agent-server/chatAgent.ts',
        "import { RunIngestor } from '../../services/tracing/ingest/runIngestor.ts';",
      )[0],
    ).toMatch(/example/);
  });
});

test('every package the product imports at run time is a runtime dependency (the image installs only those)', () => {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const runtime = new Set([...Object.keys(manifest.dependencies), ...builtinModules]);
  const missing = sourceFiles(repoRoot, ['schemas', 'platform', 'projections', 'services', 'examples', 'infra'])
    .flatMap((file) => packagesOf(readFileSync(join(repoRoot, file), 'utf8')).map((pkg) => ({ file, pkg })))
    .filter(({ pkg }) => !runtime.has(pkg))
    .map(({ file, pkg }) => `${file} imports ${pkg}`);
  expect(missing).toEqual([]);
  expect(
    packagesOf(
      "import type { A } from 'only-types';\nimport { b } from '@scope/pkg/sub';\nconst c = await import('lib');",
    ),
  ).toEqual(['@scope/pkg', 'lib']);
});

describe("composition at the top: only a process root (services/processes/) composes the contexts' plugins", () => {
  const verdict = (from: string, source: string) => namedImportsOf(from, source).map(compositionRule);

  test("no context imports another context's plugins, and no index.ts carries one", () => {
    const broken = compositionViolations(repoRoot, ['services']).map((v) => `${v.from} → ${v.to}: ${v.rule}`);
    expect(broken).toEqual([]);
  });

  test('the layout before (composition roots inside a context, plugins in index.ts) is refused', () => {
    // services/tracing/tracingApp.ts and services/bulk-export/index.ts as they were.
    expect(
      verdict(
        'services/tracing/tracingApp.ts',
        `import { currentWorkspaceRoutes, requireApiKey, TenancyService, workspaceRoutes } from '../tenancy/index.ts';
import { tracingPublicRoutes, tracingRoutes, tracingV2Routes } from './tracingRoutes.ts';
import { bulkExportRoutes, ExportState } from '../bulk-export/index.ts';`,
      ),
    ).toEqual([
      expect.stringMatching(/currentWorkspaceRoutes, workspaceRoutes.*process root/),
      null,
      expect.stringMatching(/bulkExportRoutes.*process root/),
    ]);
    const oldIndex = "export { bulkExportRoutes, type BulkExportRouteOptions } from './bulkExportRoutes.ts';";
    expect(verdict('services/bulk-export/index.ts', oldIndex)[0]).toMatch(
      /index\.ts carries no route plugin \(bulkExportRoutes\).*services\/bulk-export\/plugins\.ts/,
    );
    const renamed = "import { currentWorkspaceRoutes as routes } from '../tenancy/index.ts';";
    expect(verdict('services/deployments/controlPlaneApp.ts', renamed)[0]).toMatch(/process root/);
  });

  test("a context importing another's plugins or worker module is refused whatever it takes; a process root may", () => {
    const worker = "import { ExportWorker } from '../../bulk-export/worker.ts';";
    expect(verdict('services/tracing/routes/sessions.ts', worker)[0]).toMatch(/process root/);
    const state = "import { ExportState } from '../../bulk-export/plugins.ts';";
    expect(verdict('services/tracing/routes/sessions.ts', state)[0]).toMatch(/process root/);
    const processRoot = `import { currentWorkspaceRoutes } from '../tenancy/plugins.ts';
import { bulkExportRoutes } from '../bulk-export/plugins.ts';
import { ExportState } from '../bulk-export/index.ts';
import { ExportWorker } from '../bulk-export/worker.ts';`;
    expect(verdict('services/processes/tracingApp.ts', processRoot)).toEqual([null, null, null, null]);
    expect(importsOf('services/processes/tracingApp.ts', processRoot).map(brokenRule)).toEqual([
      null,
      null,
      null,
      null,
    ]);
    const internal = { from: 'services/processes/tracingApp.ts', to: 'services/bulk-export/exportWorker.ts' };
    expect(brokenRule(internal)).toMatch(/public modules/);
  });

  test('every Fastify plugin a context declares is named …Routes (the rule tells plugins by name)', () => {
    const PLUGIN_DECLARATION =
      /^export (?:const (\w+): FastifyPluginAsync|async function (\w+)\(\w+: FastifyInstance)/gm;
    const declared = sourceFiles(repoRoot, ['services']).flatMap((file) =>
      [...readFileSync(join(repoRoot, file), 'utf8').matchAll(PLUGIN_DECLARATION)].map(
        (m) => `${file}: ${m[1] ?? m[2]}`,
      ),
    );
    expect(declared.length).toBeGreaterThan(5);
    expect(declared.filter((d) => !d.endsWith('Routes'))).toEqual([]);
  });
});
