// The subagents' tools. `calculator` evaluates with mathjs (a parser, no eval of JavaScript),
// loaded at its first use: its 1,100 modules were a third of the app's start;
// `search_web` answers from a small offline corpus, so the example needs no search provider, and
// reports each search on the `custom` stream.
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { tool } from 'langchain';
import { z } from 'zod';

/** Evaluates an arithmetic expression to a finite number, or throws saying why not. */
export async function evaluateExpression(expression: string): Promise<number> {
  const normalized = expression.replace(/[×✕✖]/g, '*').replace(/÷/g, '/').replace(/[−–—]/g, '-');
  const { evaluate } = await import('mathjs');
  const result: unknown = evaluate(normalized);
  if (typeof result !== 'number' || !Number.isFinite(result))
    throw new Error(`"${expression}" is not an expression with a finite number as its value`);
  return result;
}

export const calculator = tool(
  async ({ expression }) => {
    try {
      return String(await evaluateExpression(expression));
    } catch (err) {
      return `Error: ${(err as Error).message}`;
    }
  },
  {
    name: 'calculator',
    description: 'Evaluate an arithmetic expression, e.g. "(17 + 25) * 3".',
    schema: z.object({ expression: z.string().describe('The expression to evaluate.') }),
  },
);

const CORPUS: { keywords: RegExp; snippet: string }[] = [
  {
    keywords: /langgraph|agent|graph/i,
    snippet:
      'LangGraph runs agents as graphs of steps with checkpoints, so a conversation can pause, resume and be replayed.',
  },
  {
    keywords: /stream|protocol|sse/i,
    snippet:
      'The agent streaming protocol sends messages, tool calls and lifecycle events over server-sent events, replaying what a client missed.',
  },
  {
    keywords: /kafka/i,
    snippet:
      'Apache Kafka is a distributed, replicated log: producers append records to partitions that consumers read in order.',
  },
  {
    keywords: /clickhouse/i,
    snippet: 'ClickHouse is a column-oriented database for analytical queries over billions of rows.',
  },
  { keywords: /weather|rain|sun/i, snippet: "Offline search cannot see today's weather; a real search tool would." },
];

export function searchOffline(query: string): { results: { title: string; snippet: string }[] } {
  const hits = CORPUS.filter((entry) => entry.keywords.test(query));
  const snippets =
    hits.length > 0
      ? hits.map((h) => h.snippet)
      : [`No offline source covers "${query}"; connect a real search tool for the live web.`];
  return { results: snippets.map((snippet, i) => ({ title: `Result ${i + 1} for: ${query}`, snippet })) };
}

/** The `custom` event search_web writes for each search (channel `custom:search_progress`). */
export const SEARCH_PROGRESS = 'search_progress';

export const searchWeb = tool(
  async ({ query }, config: LangGraphRunnableConfig) => {
    const found = searchOffline(query);
    config.writer?.({ name: SEARCH_PROGRESS, payload: { query, results: found.results.length } });
    return JSON.stringify(found);
  },
  {
    name: 'search_web',
    description: 'Search the web for information about a topic.',
    schema: z.object({ query: z.string().describe('The search query.') }),
  },
);
