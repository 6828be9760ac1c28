// POST /datasets/{dataset_id}/runs: a dataset's examples, each with the root runs of some of its
// experiments that name it (Python's get_experiment_results; LangSmith's comparison of
// experiments). The examples are the dataset as the experiments ran on it (the newest of their
// dataset_version), oldest first, offset-paged. `filters` (per experiment, filter-language
// expressions) keep the examples that have a matching run in each filtered experiment, with those
// runs; `sort_params` orders the examples by a feedback key's mean score on the first
// experiment's runs. Each run carries its feedback_stats: of a comparative experiment's feedback
// alone when the request names one. An unknown dataset, experiment or comparison, or another
// workspace's, is a 404; an experiment of another dataset, a filter that does not parse or names
// an experiment not asked for, a 400.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { BlobStore } from '../../platform/blobStore.ts';
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { errors } from '../../platform/errors.ts';
import { errorResponses, uuidSchema } from '../../platform/http/openapi.ts';
import { uuid } from '../../platform/http/routeInput.ts';
import { toUuid } from '../../platform/ids.ts';
import type { ConsumerLagMonitor } from '../../platform/kafka/consumerLag.ts';
import { parseTimestampMicros } from '../../platform/time.ts';
import type { DatasetRegistry } from '../../projections/datasets/datasetRegistry.ts';
import { exampleIdsQuery, examplesQuery } from '../../projections/examples/exampleQueries.ts';
import type { ExampleRow } from '../../projections/examples/exampleRow.ts';
import type { ProjectRegistry } from '../../projections/projects/projectRegistry.ts';
import type { ReadModelTables } from '../../projections/readModelTables.ts';
import { tenantOf } from '../tenancy/index.ts';
import {
  experimentRunExamples,
  parseRunFilters,
  rootRunsOfExamples,
  runScores,
  type ExampleRunsRequest,
} from '../tracing/index.ts';
import { exampleResponse, exampleSchema } from './exampleResponse.ts';

export interface DatasetRunsRouteOptions {
  datasets: DatasetRegistry;
  projects: ProjectRegistry;
  ch: ClickHouseClient;
  blobs: BlobStore;
  tables: ReadModelTables;
  /** The examples and feedback projectors' lags: reads wait for what was written before them. */
  examples: Pick<ConsumerLagMonitor, 'caughtUp'>;
  feedback: Pick<ConsumerLagMonitor, 'caughtUp'>;
}

const MAX_LIMIT = 100;
const MAX_SESSIONS = 50;
const MAX_FILTERS = 20;
const MAX_EXAMPLE_IDS = 1000;

interface Body {
  session_ids: string[];
  offset?: number | null;
  limit?: number | null;
  preview?: boolean | null;
  comparative_experiment_id?: string | null;
  filters?: Record<string, string[]> | null;
  sort_params?: { sort_by: string; sort_order?: 'ASC' | 'DESC' | null } | null;
  example_ids?: string[] | null;
}

const bodySchema = {
  type: 'object',
  required: ['session_ids'],
  additionalProperties: true,
  properties: {
    session_ids: {
      type: 'array',
      items: uuidSchema,
      minItems: 1,
      maxItems: MAX_SESSIONS,
      description: 'the experiments (projects with this reference dataset) whose runs to give',
    },
    offset: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'default 0' },
    limit: { type: ['integer', 'null'], minimum: 1, maximum: MAX_LIMIT, description: `examples; default ${MAX_LIMIT}` },
    preview: {
      type: ['boolean', 'null'],
      description: 'runs without inputs and outputs, with a short text of each (inputs_preview, outputs_preview)',
    },
    comparative_experiment_id: {
      type: ['string', 'null'],
      format: 'uuid',
      description: "a comparison of the experiments: the runs' feedback_stats count its (pairwise) feedback alone",
    },
    filters: {
      type: ['object', 'null'],
      maxProperties: MAX_SESSIONS,
      additionalProperties: { type: 'array', maxItems: MAX_FILTERS, items: { type: 'string' } },
      description:
        'per experiment of session_ids (its UUID the key), filter-language expressions its runs must all match: only examples with such a run in each filtered experiment, with those runs',
    },
    sort_params: {
      type: ['object', 'null'],
      required: ['sort_by'],
      additionalProperties: true,
      properties: {
        sort_by: {
          type: 'string',
          maxLength: 1000,
          description:
            "a feedback key (`feedback.` before it is optional): its mean score on the first experiment's runs",
        },
        sort_order: { type: ['string', 'null'], enum: ['ASC', 'DESC', null], description: 'default DESC' },
      },
      description: 'examples without a score of the key come last; ties oldest first',
    },
    example_ids: {
      type: ['array', 'null'],
      items: uuidSchema,
      maxItems: MAX_EXAMPLE_IDS,
      description: 'only these examples',
    },
  },
} as const;

const exampleWithRunsSchema = {
  ...exampleSchema,
  description: 'An example of the dataset with the root runs of the experiments that name it, oldest first',
  required: [...exampleSchema.required, 'runs'],
  properties: {
    ...exampleSchema.properties,
    runs: {
      type: 'array',
      items: { type: 'object', additionalProperties: true, description: 'a run, as POST /runs/query gives it' },
    },
  },
} as const;

const datasetIdParams = {
  type: 'object',
  required: ['dataset_id'],
  properties: { dataset_id: { ...uuidSchema, description: 'UUID of the dataset' } },
} as const;

/** A dataset_version an experiment's metadata holds (microseconds); null when absent or unreadable. */
function versionOf(extra: Readonly<Record<string, unknown>> | null): number | null {
  const metadata = extra?.metadata as Record<string, unknown> | undefined;
  const version = metadata?.dataset_version;
  if (typeof version !== 'string' || version === '') return null;
  try {
    return parseTimestampMicros(version, 'dataset_version');
  } catch {
    return null;
  }
}

export const datasetRunsRoutes: FastifyPluginAsync<DatasetRunsRouteOptions> = async (app, options) => {
  const { datasets, projects, ch, blobs, tables } = options;
  const deps = { ch, blobs, tables };

  const upToDate = async (request: FastifyRequest): Promise<void> => {
    await Promise.all([
      datasets.catchUp(),
      projects.catchUp(),
      options.examples.caughtUp(5000),
      options.feedback.caughtUp(5000),
    ]).catch((err: Error) => request.log.warn({ err: err.message }, 'experiment runs served without catching up'));
  };

  /** `order` by each example's mean score of the key over the session's runs (unscored last), stable. */
  const sortedByScore = async (
    order: string[],
    sort: NonNullable<Body['sort_params']>,
    session: { id: string; filter: ExampleRunsRequest['sessions'][number]['filter'] },
    comparativeId: string | null,
    tenantId: string,
  ): Promise<string[]> => {
    const key = sort.sort_by.startsWith('feedback.') && sort.sort_by.length > 9 ? sort.sort_by.slice(9) : sort.sort_by;
    const runs = await experimentRunExamples(deps, tenantId, session.id, session.filter);
    const scores = await runScores(deps, tenantId, [...runs.keys()], key, comparativeId);
    const sums = new Map<string, { total: number; n: number }>();
    for (const [run, example] of runs) {
      const score = scores.get(run);
      if (score === undefined) continue;
      const s = sums.get(example) ?? { total: 0, n: 0 };
      sums.set(example, { total: s.total + score, n: s.n + 1 });
    }
    const mean = (id: string) => {
      const s = sums.get(id);
      return s ? s.total / s.n : null;
    };
    const sign = sort.sort_order === 'ASC' ? 1 : -1;
    const position = new Map(order.map((id, i) => [id, i]));
    return [...order].sort((a, b) => {
      const [x, y] = [mean(a), mean(b)];
      if (x === null || y === null) return x === y ? position.get(a)! - position.get(b)! : x === null ? 1 : -1;
      return x === y ? position.get(a)! - position.get(b)! : sign * (x - y);
    });
  };

  app.post<{ Params: { dataset_id: string }; Body: Body }>(
    '/datasets/:dataset_id/runs',
    {
      schema: {
        tags: ['datasets'],
        summary: "A dataset's examples, each with the root runs of the given experiments that name it",
        description:
          'The dataset as the experiments ran on it (the newest of their dataset_version), oldest first; each run with its feedback_stats.',
        params: datasetIdParams,
        body: bodySchema,
        response: { 200: { type: 'array', items: exampleWithRunsSchema }, ...errorResponses(400, 404, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const datasetId = uuid(request.params.dataset_id, 'dataset_id');
      const b = request.body;
      const sessionIds = [...new Set(b.session_ids.map((v) => uuid(v, 'session_ids')))];
      const filters = new Map<string, ReturnType<typeof parseRunFilters>>();
      for (const [key, texts] of Object.entries(b.filters ?? {})) {
        // (a key's form is checked here: schemathesis does not draw keys by a propertyNames schema)
        const id = toUuid(key);
        if (id === null) throw errors.badRequest(`filters: "${key.slice(0, 64)}" is not an experiment id (a UUID)`);
        if (!sessionIds.includes(id))
          throw errors.badRequest(`filters names experiment ${id}, which is not one of session_ids`);
        filters.set(id, parseRunFilters(texts, `filters["${key}"]`));
      }
      const comparativeId = b.comparative_experiment_id
        ? uuid(b.comparative_experiment_id, 'comparative_experiment_id')
        : null;
      const offset = b.offset ?? 0;
      const limit = b.limit ?? MAX_LIMIT;

      await upToDate(request);
      if (!datasets.get(tenantId, datasetId)) throw errors.notFound(`dataset ${datasetId}`);
      let asOf: number | null = null;
      for (const id of sessionIds) {
        const project = projects.get(tenantId, id);
        if (!project) throw errors.notFound(`experiment (session) ${id}`);
        if (project.referenceDatasetId !== datasetId)
          throw errors.badRequest(`session ${id} is not an experiment of dataset ${datasetId}`);
        const version = versionOf(project.extra);
        if (version !== null && (asOf === null || version > asOf)) asOf = version;
      }
      if (comparativeId !== null && datasets.comparative(tenantId, comparativeId)?.datasetId !== datasetId)
        throw errors.notFound(`comparative experiment ${comparativeId} of dataset ${datasetId}`);

      const selection = {
        datasetId,
        asOf,
        ids: b.example_ids ? [...new Set(b.example_ids.map((v) => uuid(v, 'example_ids')))] : undefined,
      };
      const sessions = sessionIds.map((id) => ({ id, filter: filters.get(id) ?? null }));
      let rows: ExampleRow[];
      const filtered = sessions.filter((s) => s.filter !== null);
      if (filtered.length === 0 && !b.sort_params) {
        rows = await examplesQuery(ch, tables, tenantId, selection, { offset, limit });
      } else {
        // Filtered or sorted by the runs: the order of the whole selection is made here, then cut.
        let order = await exampleIdsQuery(ch, tables, tenantId, selection);
        for (const s of filtered) {
          const named = new Set((await experimentRunExamples(deps, tenantId, s.id, s.filter)).values());
          order = order.filter((id) => named.has(id));
        }
        if (b.sort_params) order = await sortedByScore(order, b.sort_params, sessions[0]!, comparativeId, tenantId);
        const page = order.slice(offset, offset + limit);
        const byId = new Map(
          (await examplesQuery(ch, tables, tenantId, { ...selection, ids: page })).map((r) => [r.id, r]),
        );
        rows = page.flatMap((id) => byId.get(id) ?? []);
      }

      const wanted: ExampleRunsRequest = {
        sessions,
        exampleIds: rows.map((r) => r.id),
        preview: b.preview === true,
        comparativeExperimentId: comparativeId,
      };
      const byExample = new Map<string, Array<Record<string, unknown>>>();
      for (const run of await rootRunsOfExamples(deps, tenantId, wanted)) {
        const example = String(run.reference_example_id);
        const runs = byExample.get(example);
        if (runs) runs.push(run);
        else byExample.set(example, [run]);
      }
      return Promise.all(
        rows.map(async (row) => ({ ...(await exampleResponse(row, blobs)), runs: byExample.get(row.id) ?? [] })),
      );
    },
  );
};
