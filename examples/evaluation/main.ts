// The evaluation loop on this platform with the official `langsmith` client, as a user runs it:
//   1. trace a small "application" (a capital-city lookup) into a project;
//   2. build a dataset from its traced runs (each run's inputs and outputs an example, with
//      source_run_id naming the run);
//   3. run an experiment over the dataset with two evaluators (exact match, and conciseness);
//   4. run a second experiment with a changed application, and compare the two pairwise;
//   5. print where to look: the dataset's experiments and the comparison view in the explorer.
// Run: `npm start` in one terminal, then `node examples/evaluation/main.ts` (LANGSMITH_ENDPOINT
// and LANGSMITH_API_KEY default to the local stack and its development key).
import { Client } from 'langsmith';
import { evaluate, evaluateComparative, type EvaluationResult } from 'langsmith/evaluation';
import type { Run } from 'langsmith/schemas';
import { traceable } from 'langsmith/traceable';
import { readDevSecret } from '../../platform/devSecrets.ts';

const endpoint = process.env.LANGSMITH_ENDPOINT ?? 'http://127.0.0.1:1984';
const apiKey = process.env.LANGSMITH_API_KEY ?? readDevSecret('BOOTSTRAP_API_KEY')?.value;
if (!apiKey) throw new Error('set LANGSMITH_API_KEY, or run `npm start` once (it keeps a development key in .local/)');
const client = new Client({ apiUrl: endpoint, apiKey });
const suffix = new Date().toISOString().replace(/[:.]/g, '-');

const CAPITALS: Record<string, string> = { France: 'Paris', Japan: 'Tokyo', Kenya: 'Nairobi', Peru: 'Lima' };
const QUESTIONS = Object.keys(CAPITALS).map((country) => `What is the capital of ${country}?`);

/** Version 1 of the application: answers with the city alone. */
const answerV1 = async ({ question }: { question: string }) => {
  const country = Object.keys(CAPITALS).find((c) => question.includes(c));
  return { answer: country ? CAPITALS[country]! : 'I do not know.' };
};
/** Version 2: wordier, and wrong about one country. */
const answerV2 = async ({ question }: { question: string }) => {
  const country = Object.keys(CAPITALS).find((c) => question.includes(c));
  if (country === 'Kenya') return { answer: 'The capital of Kenya is Mombasa.' };
  return { answer: country ? `The capital of ${country} is ${CAPITALS[country]}.` : 'I do not know.' };
};

// 1. Trace the application into a project.
const project = `capitals-app-${suffix}`;
const traced = traceable(answerV1, { name: 'capitals', project_name: project, client, tracingEnabled: true });
for (const question of QUESTIONS) await traced({ question });
await client.awaitPendingTraceBatches();
let runs: Run[] = [];
// Runs are read back a moment after they are sent (the project exists once the first one is in).
for (let attempt = 0; runs.length < QUESTIONS.length && attempt < 120; attempt++) {
  runs = [];
  try {
    for await (const run of client.listRuns({ projectName: project, isRoot: true })) runs.push(run);
  } catch (err) {
    if (!/not found/i.test(String(err))) throw err;
  }
  if (runs.length < QUESTIONS.length) await new Promise((r) => setTimeout(r, 250));
}
if (runs.length < QUESTIONS.length) throw new Error(`only ${runs.length} of ${QUESTIONS.length} runs arrived`);
console.log(`traced ${runs.length} runs into project ${project}`);

// 2. A dataset from the traced runs.
const dataset = await client.createDataset(`capitals-${suffix}`, { description: 'capital cities, from traced runs' });
await client.createExamples({
  datasetId: dataset.id,
  inputs: runs.map((r) => r.inputs),
  outputs: runs.map((r) => r.outputs ?? {}),
  sourceRunIds: runs.map((r) => r.id),
});
console.log(`dataset ${dataset.name}: ${runs.length} examples`);

// 3 and 4. Two experiments, each with two evaluators.
const exactMatch = async ({
  outputs,
  referenceOutputs,
}: {
  outputs?: Record<string, unknown>;
  referenceOutputs?: Record<string, unknown>;
}): Promise<EvaluationResult> => ({
  key: 'exact_match',
  score: String(outputs?.answer ?? '').includes(String(referenceOutputs?.answer ?? '')),
});
const concise = async ({ outputs }: { outputs?: Record<string, unknown> }): Promise<EvaluationResult> => ({
  key: 'concise',
  score: String(outputs?.answer ?? '').length <= 20 ? 1 : 0,
});
const first = await evaluate(answerV1, {
  data: dataset.name,
  evaluators: [exactMatch, concise],
  experimentPrefix: 'capitals-v1',
  client,
});
const second = await evaluate(answerV2, {
  data: dataset.name,
  evaluators: [exactMatch, concise],
  experimentPrefix: 'capitals-v2',
  client,
});
await client.awaitPendingTraceBatches();

// 5. The two compared pairwise: which answer is preferred, per example (given the results, the
//    client waits until each experiment's runs are all readable).
const preferCorrectThenShort = ({
  runs: pair,
  example,
}: {
  runs: Run[];
  example?: { outputs?: Record<string, unknown> };
}) => {
  const expected = String(example?.outputs?.answer ?? '');
  const rank = (r: Run) => {
    const answer = String(r.outputs?.answer ?? '');
    return (answer.includes(expected) ? 100 : 0) - answer.length;
  };
  const best = Math.max(...pair.map(rank));
  return { key: 'preferred', scores: Object.fromEntries(pair.map((r) => [r.id, rank(r) === best ? 1 : 0])) };
};
const compared = await evaluateComparative([first, second], {
  evaluators: [preferCorrectThenShort],
  client,
});

const ui = endpoint.replace(/\/api\/v1$/, '');
console.log(`experiments: ${first.experimentName}, ${second.experimentName}`);
console.log(`comparative experiment ${compared.comparativeExperiment.id}`);
console.log(`see them: ${ui}/ui/datasets/${dataset.id} (Experiments), and side by side:`);
console.log(
  `  ${ui}/ui/datasets/${dataset.id}/compare?experiments=${await idOf(first.experimentName)},${await idOf(second.experimentName)}`,
);

async function idOf(name: string): Promise<string> {
  return (await client.readProject({ projectName: name })).id;
}
