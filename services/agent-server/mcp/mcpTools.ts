// Assistants as MCP tools, as LangGraph's agent server lists them: the tool's name is the
// assistant's name made a valid MCP tool name, its title the assistant's name, its description
// the assistant's (or "Tool based on the … assistant"), and its input schema the graph's input
// schema, with each list of messages turned into a string (the user message: the graph's messages
// reducer takes a string as a human message), which a model can fill. Tools are listed 100 a page.
import { graphJsonSchemas, type JsonSchema, MESSAGES_TYPE } from '../graphSchemas.ts';
import type { ServedAssistant } from './servedAssistants.ts';

export const TOOLS_PAGE_SIZE = 100;

/** MCP tool names: `^[a-zA-Z0-9_.-]{1,128}$`; whitespace runs become `_`, other characters go. */
export function toolName(assistantName: string): string {
  return assistantName
    .trim()
    .replace(/\s+/g, '_')
    .replace(/[^a-zA-Z0-9_.-]/g, '')
    .slice(0, 128);
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  annotations: Record<string, boolean>;
}

/** The graph's input schema for a model to fill: lists of messages as the one message to send. */
export function toolInputSchema(input: JsonSchema | null): McpTool['inputSchema'] {
  const schema: JsonSchema = structuredClone(input ?? {});
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  for (const [key, property] of Object.entries(properties ?? {}))
    if (property.langgraph_type === MESSAGES_TYPE)
      properties![key] = { type: 'string', title: key, description: 'The user message to send to the agent.' };
  return { ...schema, type: 'object' };
}

function toolOf({ assistant, graph }: ServedAssistant, name: string): McpTool {
  return {
    name,
    title: assistant.name,
    description: assistant.description || `Tool based on the ${assistant.name} assistant`,
    inputSchema: toolInputSchema(graphJsonSchemas(graph).input_schema),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  };
}

/** The assistants, one tool per name (the first of those whose names make the same tool name), from `offset`. */
export function toolsPage(served: ServedAssistant[], offset: number): { tools: McpTool[]; nextCursor?: string } {
  const seen = new Set<string>();
  const tools: McpTool[] = [];
  for (const one of served) {
    const name = toolName(one.assistant.name);
    if (!name || seen.has(name)) continue;
    seen.add(name);
    tools.push(toolOf(one, name));
  }
  const page = tools.slice(offset, offset + TOOLS_PAGE_SIZE);
  const next = offset + TOOLS_PAGE_SIZE;
  return next < tools.length ? { tools: page, nextCursor: String(next) } : { tools: page };
}

/** The assistants a tool name stands for (more than one: an ambiguous name, refused as LangGraph does). */
export function assistantsNamed(served: ServedAssistant[], name: string): ServedAssistant[] {
  return served.filter((one) => toolName(one.assistant.name) === name);
}
