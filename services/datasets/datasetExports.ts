// A dataset's examples (at a version) as files: JSON Lines (one example a line, as the API answers
// it), CSV (a column per input and per output key, `inputs.<key>` and `outputs.<key>`, plus id,
// splits and metadata; values that are not text as JSON), and OpenAI's fine-tuning format for chat
// and LLM datasets (one `{"messages": [...]}` a line: the conversation of the inputs, then the
// reference output as the assistant's message). csv-stringify quotes what CSV must quote.
import { stringify } from 'csv-stringify/sync';
import type { DataType } from '../../projections/datasets/datasetRegistry.ts';
import type { ExampleRow } from '../../projections/examples/exampleRow.ts';

type Json = Record<string, unknown>;

const parsed = (row: ExampleRow) => ({
  inputs: JSON.parse(row.inputs) as Json,
  outputs: row.outputs === null ? null : (JSON.parse(row.outputs) as Json),
  metadata: JSON.parse(row.metadata) as Json,
});

export function examplesAsJsonl(rows: ExampleRow[]): string {
  return rows
    .map((row) => {
      const { inputs, outputs, metadata } = parsed(row);
      return `${JSON.stringify({ id: row.id, inputs, outputs, metadata: { ...metadata, dataset_split: row.splits } })}\n`;
    })
    .join('');
}

export function examplesAsCsv(rows: ExampleRow[]): string {
  const all = rows.map(parsed);
  const keys = (pick: (e: (typeof all)[number]) => Json | null) =>
    [...new Set(all.flatMap((e) => Object.keys(pick(e) ?? {})))].sort();
  const inputKeys = keys((e) => e.inputs);
  const outputKeys = keys((e) => e.outputs);
  const cell = (value: unknown) =>
    value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  const header = [
    'id',
    ...inputKeys.map((k) => `inputs.${k}`),
    ...outputKeys.map((k) => `outputs.${k}`),
    'splits',
    'metadata',
  ];
  const records = rows.map((row, i) => {
    const e = all[i]!;
    return [
      row.id,
      ...inputKeys.map((k) => cell(e.inputs[k])),
      ...outputKeys.map((k) => cell(e.outputs?.[k])),
      row.splits.join(' '),
      JSON.stringify(e.metadata),
    ];
  });
  return stringify([header, ...records]);
}

/** A message as OpenAI's chat format has it: a role and content (LangChain's `type` read as the role). */
function message(m: unknown, fallbackRole: string): Json {
  if (typeof m === 'string') return { role: fallbackRole, content: m };
  if (typeof m !== 'object' || m === null) return { role: fallbackRole, content: JSON.stringify(m) };
  const o = m as Json;
  const roles: Record<string, string> = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool' };
  const role = typeof o.role === 'string' ? o.role : (roles[String(o.type)] ?? fallbackRole);
  const data = (o.data ?? o) as Json; // a serialized LangChain message keeps its fields under data
  const content = data.content ?? o.content ?? '';
  return { role, content: typeof content === 'string' ? content : JSON.stringify(content) };
}

/**
 * OpenAI fine-tuning lines. Chat datasets: inputs.messages (or inputs.input) then outputs.output
 * (or outputs.message, or the first output). LLM and key-value datasets: inputs.input (or the
 * inputs as JSON) as the user's message, outputs.output (or the outputs as JSON) as the answer.
 */
export function examplesAsOpenAiFineTuning(rows: ExampleRow[], dataType: DataType): string {
  return rows
    .map((row) => {
      const { inputs, outputs } = parsed(row);
      const first = (o: Json | null) => (o ? Object.values(o)[0] : undefined);
      let messages: Json[];
      if (dataType === 'chat') {
        const conversation = inputs.messages ?? inputs.input ?? first(inputs);
        const turns = Array.isArray(conversation) ? conversation.flat() : [conversation];
        messages = turns.map((m) => message(m, 'user'));
      } else {
        const prompt = inputs.input ?? inputs.prompt ?? (Object.keys(inputs).length === 1 ? first(inputs) : inputs);
        messages = [message(typeof prompt === 'string' ? prompt : JSON.stringify(prompt), 'user')];
      }
      if (outputs) {
        const answer = outputs.output ?? outputs.message ?? outputs.generation ?? first(outputs);
        messages.push(message(typeof answer === 'object' && answer !== null ? answer : String(answer), 'assistant'));
      }
      return `${JSON.stringify({ messages })}\n`;
    })
    .join('');
}
